// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr.c: memory regions.
 *
 * Keys: lkey == rkey == index << 8 | key byte, where index is the MR's
 * slot in the device's xarray (handed out cyclically: a slot is taken
 * again only after the other 2^24 - 1 have been) and the key byte is
 * random, as rxe's, so a key cannot be guessed from an earlier one and a
 * key that outlives its MR finds nothing, or a slot with another key but
 * one time in 256. Engines find MRs with sroce_mr_get() (RCU lookup, kref);
 * deregistration removes the key first, then waits for those references
 * to go, so once ibv_dereg_mr() returns no packet can touch the memory.
 *
 * Fast-registration MRs (alloc_mr) belong to kernel users: map_mr_sg()
 * fills in their blocks of kernel memory, and an IB_WR_REG_MR in a send
 * queue opens them under a key whose low byte the user chose, until a
 * LOCAL_INV or a SEND with invalidate closes them (sroce_mr_fast_reg(),
 * sroce_mr_invalidate()).
 */
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "core/sgl.h"
#include "device.h"
#include "mr.h"
#include "queue.h"

static u32 sroce_mr_key(u32 index, u8 gen)
{
	return index << 8 | gen;
}

static int sroce_mr_pin(struct sroce_mr *mr, struct ib_device *ibdev,
			u64 start, u64 length, int access)
{
	struct sg_page_iter it;
	unsigned long i = 0;

	mr->umem = ib_umem_get(ibdev, start, length, access);
	if (IS_ERR(mr->umem))
		return PTR_ERR(mr->umem);
	mr->npages = ib_umem_num_pages(mr->umem);
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages),
			     SROCE_GFP_USER_BIG);
	if (!mr->pages) {
		ib_umem_release(mr->umem);
		return -ENOMEM;
	}
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &it, 0) {
		if (WARN_ON_ONCE(i >= mr->npages))
			break;
		mr->pages[i++] = sg_page_iter_page(&it);
	}
	mr->offset = ib_umem_offset(mr->umem);
	return 0;
}

static void sroce_mr_unpin(struct sroce_mr *mr)
{
	kvfree(mr->pages);
	ib_umem_release(mr->umem);
}

/**
 * sroce_mr_add_key() - give a new MR or window its key, and count it
 * @sdev: the device
 * @mr: the MR or window; findable by its key from now on
 *
 * Return: 0, or -ENOMEM past the device's limit, or the xarray's error.
 */
int sroce_mr_add_key(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	bool mw = mr->kind == SROCE_MR_WINDOW;
	atomic_t *num = mw ? &sdev->num_mw : &sdev->num_mr;
	u32 index;
	u8 byte;
	int err;

	if (atomic_inc_return(num) > (mw ? SROCE_MAX_MW : SROCE_MAX_MR)) {
		atomic_dec(num);
		return -ENOMEM;
	}
	err = xa_alloc_cyclic(&sdev->mr_xa, &index, mr,
			      mw ? XA_LIMIT(SROCE_MW_INDEX_MIN,
					    SROCE_KEY_INDEX_MAX) :
				   XA_LIMIT(1, SROCE_MW_INDEX_MIN - 1),
			      mw ? &sdev->mw_next : &sdev->mr_next,
			      GFP_KERNEL);
	if (err < 0) {
		atomic_dec(num);
		return err;
	}
	byte = get_random_u8();
	mr->key = sroce_mr_key(index, byte);
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return 0;
}

struct sroce_mr *sroce_mr_alloc(enum sroce_mr_kind kind, int access,
				u64 iova, u64 length)
{
	struct sroce_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);

	if (!mr)
		return NULL;
	kref_init(&mr->ref);
	init_completion(&mr->free);
	mr->kind = kind;
	mr->state = kind == SROCE_MR_FAST || kind == SROCE_MR_WINDOW ?
		    SROCE_MR_FREE : SROCE_MR_VALID;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return mr;
}

/* May a user MR have these rights and this range? 0 or an errno. */
static int sroce_mr_user_ok(int access, u64 length, u64 iova)
{
	if (access & ~(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
		       IB_ACCESS_MW_BIND | IB_ACCESS_RELAXED_ORDERING))
		return -EOPNOTSUPP;
	if (!length || length > SROCE_MAX_MR_SIZE || iova + length < iova)
		return -EINVAL;
	/* Remote write and atomic need local write (IBTA o10-37). */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	err = sroce_mr_user_ok(access, length, iova);
	if (err)
		return ERR_PTR(err);

	mr = sroce_mr_alloc(SROCE_MR_USER, access, iova, length);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	err = sroce_mr_pin(mr, ibpd->device, start, length, access);
	if (err)
		goto err_free;
	err = sroce_mr_add_key(sdev, mr);
	if (err)
		goto err_unpin;
	return &mr->ibmr;

err_unpin:
	sroce_mr_unpin(mr);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * Close a VALID MR: no engine finds it any more, and those that found it
 * (each holds a reference for one packet, bottom halves off, waiting for
 * nothing) are done. @mine: references the caller holds. Return: false
 * when it was not VALID.
 */
bool sroce_mr_close(struct sroce_mr *mr, unsigned int mine)
{
	u32 state;

	/* Another closing of it, on another CPU, ends first. */
	while ((state = cmpxchg(&mr->state, SROCE_MR_VALID, SROCE_MR_BUSY)) ==
	       SROCE_MR_BUSY)
		cpu_relax();
	if (state != SROCE_MR_VALID)
		return false;
	/* The table's reference and the caller's: every other one is gone. */
	while (kref_read(&mr->ref) > 1 + mine)
		cpu_relax();
	/* Their copies, done before their kref_put(), before what follows. */
	smp_acquire__after_ctrl_dep();
	return true;
}

/* After sroce_mr_close(): @state (VALID or FREE), with what was changed. */
void sroce_mr_reopen(struct sroce_mr *mr, enum sroce_mr_state state)
{
	/* Pairs with sroce_mr_get(): the fields, then the state. */
	smp_store_release(&mr->state, state);
}

/**
 * sroce_rereg_user_mr() - ibv_rereg_mr() in place
 * @ibmr: the MR
 * @flags: IB_MR_REREG_TRANS, _PD, _ACCESS
 * @start: new user address (TRANS)
 * @length: new length (TRANS)
 * @iova: new iova (TRANS)
 * @access: new rights (ACCESS)
 * @pd: new PD (PD)
 * @udata: unused
 *
 * The keys stay, as on ConnectX and rxe: peers keep using the rkey they
 * were given, with the new rights, pages or PD. New pages are pinned
 * first (so a failure leaves the MR as it was), and so are the old ones
 * again when the rights become writable (they were pinned for reading).
 * The MR is closed while it changes (sroce_mr_close()): a packet sees it
 * before or after, never half of it.
 *
 * Return: NULL (changed in place) or an ERR_PTR().
 */
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *pd, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_mr old = {}, pin = {};
	bool repin;
	int err;

	if (mr->kind != SROCE_MR_USER)
		return ERR_PTR(-EOPNOTSUPP);
	if (atomic_read(&mr->windows))
		return ERR_PTR(-EBUSY);
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = mr->umem->length;
		iova = mr->iova;
	}
	err = sroce_mr_user_ok(access, length, iova);
	if (err)
		return ERR_PTR(err);
	repin = (flags & IB_MR_REREG_TRANS) ||
		ib_access_writable(access) != ib_access_writable(mr->access);
	if (repin) {
		err = sroce_mr_pin(&pin, ibmr->device, start, length, access);
		if (err)
			return ERR_PTR(err);
	}

	sroce_mr_close(mr, 0);
	if (repin) {
		old.umem = mr->umem;
		old.pages = mr->pages;
		mr->umem = pin.umem;
		mr->pages = pin.pages;
		mr->npages = pin.npages;
		mr->offset = pin.offset;
		mr->iova = iova;
		mr->length = length;
	}
	mr->access = access;
	if (flags & IB_MR_REREG_PD)
		WRITE_ONCE(ibmr->pd, pd);	/* the core sets it too */
	sroce_mr_reopen(mr, SROCE_MR_VALID);
	if (repin)
		sroce_mr_unpin(&old);
	return NULL;
}

/**
 * sroce_get_dma_mr() - a kernel MR over all kernel memory
 * @ibpd: its PD
 * @access: IB_ACCESS_*; local only
 *
 * sroce is a software device (no dma_device): the RDMA core maps kernel
 * buffers to their kernel virtual addresses (ib_uses_virt_dma()), and
 * those are what SGEs with this MR's key carry. ib_alloc_pd() makes one
 * per kernel PD for pd->local_dma_lkey. Remote access to all of kernel
 * memory (IB_PD_UNSAFE_GLOBAL_RKEY) is refused.
 *
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	if (access & ~IB_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EOPNOTSUPP);
	mr = sroce_mr_alloc(SROCE_MR_DMA, access, 0, U64_MAX);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->ibmr.pd = ibpd;

	err = sroce_mr_add_key(sdev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

static void sroce_mr_release(struct kref *ref)
{
	complete(&container_of(ref, struct sroce_mr, ref)->free);
}

/**
 * sroce_mr_remove() - take an MR's or window's key away, and wait
 * @sdev: the device
 * @mr: the MR or window
 *
 * Once it returns, no engine finds it and none holds it. Process context.
 */
void sroce_mr_remove(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	xa_erase(&sdev->mr_xa, mr->key >> 8);
	kref_put(&mr->ref, sroce_mr_release);
	wait_for_completion(&mr->free);
	atomic_dec(mr->kind == SROCE_MR_WINDOW ? &sdev->num_mw :
		   &sdev->num_mr);
}

/*
 * dereg_mr. An MR windows are bound to stays (IBTA 10.6.7.2.6, as rxe):
 * -EBUSY; when its process exits, the core frees the windows and tries
 * again.
 */
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);
	bool was_valid;

	/* Closed: no bind finds it now, and none is under way. */
	was_valid = sroce_mr_close(mr, 0);
	if (atomic_read(&mr->windows)) {
		if (was_valid)
			sroce_mr_reopen(mr, SROCE_MR_VALID);
		return -EBUSY;
	}
	sroce_mr_remove(sdev, mr);
	if (mr->kind == SROCE_MR_USER)
		sroce_mr_unpin(mr);
	kfree(mr->bufs);
	kfree_rcu(mr, rcu);
	return 0;
}

/**
 * sroce_alloc_mr() - alloc_mr: a fast-registration MR
 * @ibpd: its PD
 * @type: IB_MR_TYPE_MEM_REG only
 * @max_num_sg: the most blocks map_mr_sg() may give it
 *
 * The MR starts FREE: its key opens nothing until an IB_WR_REG_MR.
 * Return: the MR or an ERR_PTR().
 */
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);
	mr = sroce_mr_alloc(SROCE_MR_FAST, 0, 0, 0);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->bufs = kcalloc(max_num_sg, sizeof(*mr->bufs), GFP_KERNEL_ACCOUNT);
	if (!mr->bufs) {
		kfree(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_bufs = max_num_sg;
	err = sroce_mr_add_key(sdev, mr);
	if (err) {
		kfree(mr->bufs);
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

static int sroce_mr_set_buf(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->nbufs == mr->max_bufs)
		return -ENOMEM;
	mr->bufs[mr->nbufs++] = addr;
	return 0;
}

/**
 * sroce_map_mr_sg() - map_mr_sg: the blocks a fast-registration MR opens
 * @ibmr: the MR, not VALID (its user's duty)
 * @sg: DMA-mapped scatterlist: sroce has no DMA device, so its DMA
 *	addresses are kernel virtual addresses (ib_uses_virt_dma())
 * @sg_nents: its entries
 * @sg_offset: where in the first one to start, or NULL
 *
 * ib_sg_to_pages() splits the list into blocks of ibmr->page_size and
 * sets ibmr->iova and ibmr->length; the IB_WR_REG_MR that follows takes
 * them (its user may change iova's upper bits first, as NFS does).
 * Return: the entries mapped.
 */
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);
	int n;

	if (!is_power_of_2(ibmr->page_size) || ibmr->page_size < SZ_512)
		return -EINVAL;
	mr->nbufs = 0;
	mr->buf_shift = ilog2(ibmr->page_size);
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_mr_set_buf);
	mr->map_offset = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/**
 * sroce_mr_fast_reg() - run an IB_WR_REG_MR
 * @sdev: the device
 * @pd: the PD of the QP that runs it
 * @reg: what it asks
 *
 * The requester's context (sq_lock held, bottom halves off). The checks
 * are those of IBTA 10.6.3.2 and rxe: a fast-registration MR of this PD,
 * FREE, the same index (only the key byte changes), rights that make
 * sense (remote write and atomic need local write), and a range that the
 * mapped blocks hold.
 * Return: 0 or -EINVAL.
 */
int sroce_mr_fast_reg(struct sroce_dev *sdev, struct ib_pd *pd,
		      const struct sroce_fast_reg *reg)
{
	int rights = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		     IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
		     IB_ACCESS_MW_BIND | IB_ACCESS_RELAXED_ORDERING;
	struct sroce_mr *mr;
	int err = -EINVAL;
	u64 room;

	mr = sroce_mr_find(sdev, reg->key);
	if (!mr)
		return -EINVAL;
	room = ((u64)mr->nbufs << mr->buf_shift) - mr->map_offset;
	if (mr->kind != SROCE_MR_FAST || mr->ibmr.pd != pd ||
	    (reg->access & ~rights) ||
	    ((reg->access & (IB_ACCESS_REMOTE_WRITE |
			     IB_ACCESS_REMOTE_ATOMIC)) &&
	     !(reg->access & IB_ACCESS_LOCAL_WRITE)) ||
	    !mr->nbufs || reg->length > room ||
	    reg->iova + reg->length < reg->iova)
		goto out;
	if (cmpxchg(&mr->state, SROCE_MR_FREE, SROCE_MR_BUSY) != SROCE_MR_FREE)
		goto out;
	mr->key = reg->key;
	mr->access = reg->access;
	mr->iova = reg->iova;
	mr->length = reg->length;
	mr->offset = mr->map_offset;
	sroce_mr_reopen(mr, SROCE_MR_VALID);
	err = 0;
out:
	sroce_mr_put(mr);
	return err;
}

/**
 * sroce_mr_invalidate() - close a fast-registration MR's key
 * @sdev: the device
 * @pd: the PD of the QP that asks (LOCAL_INV, or SEND with invalidate)
 * @key: the key
 *
 * Bottom halves off. Only a fast-registration MR of @pd whose key is @key
 * may be invalidated (IBTA 10.6.6: not a region registered otherwise); one
 * already FREE stays so. Engines that found the MR VALID before hold a
 * reference for one packet at most, with bottom halves off, and wait for
 * nothing on the way: the caller waits for them, so once the LOCAL_INV
 * or the SEND completes no byte moves through the key.
 * Return: 0 or -EINVAL.
 */
int sroce_mr_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 key)
{
	struct sroce_mr *mr;
	int err = -EINVAL;

	mr = sroce_mr_find(sdev, key);
	if (!mr)
		return -EINVAL;
	/* Not while windows are bound to it (IBTA 10.6.7.2.6, as rxe) */
	if (mr->kind != SROCE_MR_FAST || mr->ibmr.pd != pd ||
	    READ_ONCE(mr->key) != key || atomic_read(&mr->windows))
		goto out;
	if (sroce_mr_close(mr, 1))
		sroce_mr_reopen(mr, SROCE_MR_FREE);
	err = 0;
out:
	sroce_mr_put(mr);
	return err;
}

/**
 * sroce_mr_find() - the MR or window of a key's index, whatever its state
 * @sdev: the device
 * @key: the key
 *
 * Any context. Return: it, with a reference, or NULL.
 */
struct sroce_mr *sroce_mr_find(struct sroce_dev *sdev, u32 key)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_xa, key >> 8);
	if (mr && !kref_get_unless_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * sroce_key_get() - the MR or window a key opens now
 * @sdev: the device
 * @key: the key
 *
 * Bottom halves off, for one packet at most: closing an MR or a window
 * (sroce_mr_close()) waits for the reference to go. Return: the VALID MR
 * or window whose key is @key, with a reference, or NULL.
 */
struct sroce_mr *sroce_key_get(struct sroce_dev *sdev, u32 key)
{
	struct sroce_mr *mr = sroce_mr_find(sdev, key);

	if (!mr)
		return NULL;
	/*
	 * Our reference is seen before we read the state, as closing sets
	 * BUSY before it counts the references (sroce_mr_close()).
	 */
	smp_mb__after_atomic();
	/* Pairs with sroce_mr_reopen(): VALID, then the fields it set. */
	if (smp_load_acquire(&mr->state) != SROCE_MR_VALID ||
	    READ_ONCE(mr->key) != key) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

/**
 * sroce_mr_get() - find a memory region by key
 * @sdev: the device
 * @key: an lkey or rkey; a window's finds nothing
 *
 * As sroce_key_get(). Return: the VALID MR with a reference, or NULL.
 */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key)
{
	return sroce_key_is_mw(key) ? NULL : sroce_key_get(sdev, key);
}

void sroce_mr_put(struct sroce_mr *mr)
{
	kref_put(&mr->ref, sroce_mr_release);
}

/**
 * sroce_mr_check() - may @len bytes at @iova be accessed this way?
 * @mr: the region
 * @pd: the protection domain of the QP asking
 * @iova: first byte
 * @len: length; 0 is allowed anywhere in the region
 * @access: IB_ACCESS_* needed (0 for a local read)
 *
 * Return: 0, -EACCES (wrong PD or rights) or -EFAULT (out of bounds).
 */
int sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd, u64 iova,
		   u64 len, int access)
{
	if (mr->ibmr.pd != pd || (mr->access & access) != access)
		return -EACCES;
	if (!sroce_range_in(mr->iova, mr->length, iova, len))
		return -EFAULT;
	return 0;
}
