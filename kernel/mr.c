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
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "core/sgl.h"
#include "device.h"
#include "mr.h"
#include "queue.h"
#include "recv.h"
#include "xmit.h"

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

/*
 * The byte at @iova of a checked range, mapped, and in *@n how many of the
 * @len bytes from it on follow it in memory: a page of a user MR, a block
 * of a fast-registration MR, or the rest (DMA MR: iova is the kernel
 * address). Unmapped by sroce_mr_unmap().
 */
static u8 *sroce_mr_map(struct sroce_mr *mr, u64 iova, u32 len, u32 *n)
{
	u64 pos = iova - mr->iova + mr->offset;
	u32 bsize;

	switch (mr->kind) {
	case SROCE_MR_DMA:
		*n = len;
		return (u8 *)(uintptr_t)iova;
	case SROCE_MR_FAST:
		bsize = 1u << mr->buf_shift;
		*n = sroce_page_span(pos, len, bsize);
		return (u8 *)(uintptr_t)(mr->bufs[pos >> mr->buf_shift] +
					 (pos & (bsize - 1)));
	default:
		*n = sroce_page_span(pos, len, PAGE_SIZE);
		return (u8 *)kmap_local_page(mr->pages[pos >> PAGE_SHIFT]) +
		       offset_in_page(pos);
	}
}

static void sroce_mr_unmap(struct sroce_mr *mr, u8 *va)
{
	if (mr->kind == SROCE_MR_USER)
		kunmap_local(va);
}

/**
 * sroce_mr_copy() - copy between a checked range of an MR and a buffer
 * @mr: the region
 * @iova: first byte, checked by sroce_mr_check()
 * @buf: kernel buffer
 * @len: bytes
 * @dir: SROCE_TO_MR or SROCE_FROM_MR
 *
 * Any context: pages are pinned and mapped one at a time.
 */
void sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir)
{
	u8 *p = buf;

	while (len) {
		u32 n;
		u8 *va = sroce_mr_map(mr, iova, len, &n);

		if (dir == SROCE_TO_MR)
			memcpy(va, p, n);
		else
			memcpy(p, va, n);
		sroce_mr_unmap(mr, va);
		p += n;
		iova += n;
		len -= n;
	}
}

/**
 * sroce_mr_copy_skb() - copy bytes of an skb into a checked range of an MR
 * @mr: the region
 * @iova: first byte, checked by sroce_mr_check()
 * @skb: the source
 * @off: offset in @skb, from skb->data
 * @len: bytes
 * @crc: NULL, or a CRC register to feed the bytes into as they are copied
 *	 (sroce_skb_copy())
 *
 * Any context. Return: 0, or -EFAULT when @skb is shorter than that.
 */
int sroce_mr_copy_skb(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
		      unsigned int off, u32 len, u32 *crc)
{
	int err = 0;

	while (len && !err) {
		u32 n;
		u8 *va = sroce_mr_map(mr, iova, len, &n);

		err = sroce_skb_copy(skb, off, va, n, crc);
		sroce_mr_unmap(mr, va);
		off += n;
		iova += n;
		len -= n;
	}
	return err;
}

/*
 * Add a copy of @n bytes (at most a page) of a kernel MR at @iova to @skb
 * as a fragment of its own. Return: 0, -E2BIG or -ENOMEM.
 */
static int sroce_skb_add_copy(struct sroce_mr *mr, u64 iova,
			      struct sk_buff *skb, u32 n)
{
	u8 *buf;

	if (skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS - 1)
		return -E2BIG;
	buf = sroce_skb_frag_append(skb, n);
	if (!buf)
		return -ENOMEM;
	sroce_mr_copy(mr, iova, buf, n, SROCE_FROM_MR);
	return 0;
}

/*
 * Add a checked range, at most a page, of a DMA or fast-registration MR
 * to @skb in two fragments at most: by reference to the pages under its
 * kernel addresses where it lies in one block and every page may be held
 * (sroce_kva_page()), else as one fragment with a copy.
 */
static int sroce_mr_attach_kernel(struct sroce_mr *mr, u64 iova,
				  struct sk_buff *skb, u32 len)
{
	struct page *page, *next = NULL;
	unsigned int off;
	u32 n, first;
	u8 *va;

	va = sroce_mr_map(mr, iova, len, &n);
	off = offset_in_page(va);
	first = min_t(u32, len, PAGE_SIZE - off);
	page = n == len ? sroce_kva_page(va) : NULL;
	if (page && first < len)
		next = sroce_kva_page(va + first);
	if (!page || (first < len && !next))
		return sroce_skb_add_copy(mr, iova, skb, len);
	if (sroce_skb_add_page(skb, page, off, first))
		return -E2BIG;
	return next ? sroce_skb_add_page(skb, next, 0, len - first) : 0;
}

/**
 * sroce_mr_attach() - add a checked range of an MR to an skb by reference
 * @mr: the region
 * @iova: first byte, checked by sroce_mr_check()
 * @skb: the packet: the pages become its fragments, each with a page
 *	 reference; a range that continues the last fragment extends it
 * @len: bytes, at most a page
 *
 * A user MR's pages are pinned by the MR; a kernel MR's are its owner's
 * (sroce_mr_attach_kernel(): some are copied). The references keep them
 * after a deregistration, and after their owner unmaps or frees them,
 * until the packet is gone: the packet then carries what they hold, never
 * another's memory. They may be a read-only or shared file mapping's
 * (page cache): the skb is marked SKBFL_SHARED_FRAG, as sendfile marks its
 * pages, so that no layer writes into them in place (an IPsec receiver, a
 * checksum helper) without copying first. The range adds two fragments
 * at most, and one is left for the caller's trailer
 * (sroce_skb_end_frags()). Any context.
 * Return: 0, -E2BIG when the fragments run out, or -ENOMEM.
 */
int sroce_mr_attach(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
		    u32 len)
{
	u64 pos = iova - mr->iova + mr->offset;
	int err;

	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
	if (mr->kind != SROCE_MR_USER)
		return sroce_mr_attach_kernel(mr, iova, skb, len);
	while (len) {
		unsigned int n = sroce_page_span(pos, len, PAGE_SIZE);

		err = sroce_skb_add_page(skb, mr->pages[pos >> PAGE_SHIFT],
					 offset_in_page(pos), n);
		if (err)
			return err;
		pos += n;
		len -= n;
	}
	return 0;
}

/*
 * Walk @len bytes at message offset @off of an SGE list, checking each
 * piece against its MR, and copy it to or from @buf, or from @skb (and
 * into @crc, unless NULL), or add its pages to @to.
 */
static int sroce_sgl_walk(const struct sroce_sgl *l, u64 off, u32 len,
			  u8 *buf, struct sk_buff *skb,
			  unsigned int skb_off, u32 *crc, struct sk_buff *to,
			  enum sroce_copy_dir dir)
{
	int access = dir == SROCE_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;

	for (i = 0; i < l->num && len; i++) {
		const struct sroce_sge *g = &l->sge[i];
		struct sroce_mr *mr;
		u64 at;
		u32 n;
		int err;

		if (!sroce_sge_piece(g->addr, g->length, &off, len, &at, &n))
			return -EFAULT;
		if (!n)
			continue;
		mr = sroce_mr_get(l->sdev, g->lkey);
		if (!mr)
			return -EACCES;
		err = sroce_mr_check(mr, l->pd, at, n, access);
		if (!err && to)
			err = sroce_mr_attach(mr, at, to, n);
		else if (!err && skb)
			err = sroce_mr_copy_skb(mr, at, skb, skb_off, n, crc);
		else if (!err)
			sroce_mr_copy(mr, at, buf, n, dir);
		sroce_mr_put(mr);
		if (err)
			return err;
		if (buf)
			buf += n;
		skb_off += n;
		len -= n;
	}
	return len ? -ENOSPC : 0;
}

/**
 * sroce_sgl_copy() - copy between part of a message and a kernel buffer
 * @l: the message's SGE list
 * @off: offset in the message (the concatenation of the list)
 * @buf: the buffer
 * @len: bytes
 * @dir: SROCE_TO_MR (needs local write access) or SROCE_FROM_MR
 *
 * Any context. Return: 0; -EACCES for a bad key, PD or access right;
 * -EFAULT when an SGE lies outside its MR; -ENOSPC when the list is
 * shorter than @off + @len.
 */
int sroce_sgl_copy(const struct sroce_sgl *l, u64 off, void *buf, u32 len,
		   enum sroce_copy_dir dir)
{
	return sroce_sgl_walk(l, off, len, buf, NULL, 0, NULL, NULL, dir);
}

/**
 * sroce_sgl_copy_skb() - copy bytes of an skb into part of a message
 * @l: the message's SGE list
 * @off: offset in the message
 * @skb: the source
 * @skb_off: offset in @skb, from skb->data
 * @len: bytes
 * @crc: NULL, or a CRC register fed with the bytes (sroce_mr_copy_skb())
 *
 * Any context. Return: as sroce_sgl_copy().
 */
int sroce_sgl_copy_skb(const struct sroce_sgl *l, u64 off,
		       struct sk_buff *skb, unsigned int skb_off,
		       u32 len, u32 *crc)
{
	return sroce_sgl_walk(l, off, len, NULL, skb, skb_off, crc, NULL,
			      SROCE_TO_MR);
}

/**
 * sroce_sgl_attach() - add part of a message to an skb without copying it
 * @l: the message's SGE list
 * @off: offset in the message
 * @skb: the packet: the pages become its fragments, each with a reference
 * @len: bytes
 *
 * Any context (sroce_mr_attach()).
 * Return: as sroce_sgl_copy(), or -E2BIG when @skb runs out of fragments
 * (one is kept for sroce_skb_end_frags()), or -ENOMEM.
 */
int sroce_sgl_attach(const struct sroce_sgl *l, u64 off, struct sk_buff *skb,
		     u32 len)
{
	return sroce_sgl_walk(l, off, len, NULL, NULL, 0, NULL, skb,
			      SROCE_FROM_MR);
}

/**
 * sroce_mr_atomic() - a 64-bit atomic operation on MR memory
 * @mr: the region
 * @iova: the word, checked by sroce_mr_check() for 8 bytes
 * @cmp_swap: compare and swap; else fetch and add
 * @cmp_add: the compare value, or the addend
 * @swap: the swap value
 * @orig: the word's value before the operation
 *
 * The operation is a real atomic on the page, so it is atomic against
 * other QPs and against the CPUs of the process that owns the memory.
 *
 * Return: 0, or -EINVAL when the word is not 8-byte aligned in memory
 * (an MR registered with an iova of another alignment than its address).
 */
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, bool cmp_swap,
		    u64 cmp_add, u64 swap, u64 *orig)
{
	u64 *p, old;
	u8 *va;
	u32 n;

	va = sroce_mr_map(mr, iova, sizeof(*p), &n);
	if (mr->kind == SROCE_MR_DMA || ((uintptr_t)va & 7)) {
		sroce_mr_unmap(mr, va);
		return -EINVAL;
	}
	p = (u64 *)va;
	/* One instruction each: no retry loop a writer of the word can feed. */
	if (cmp_swap)
		old = cmpxchg64(p, cmp_add, swap);
	else
		old = atomic64_fetch_add(cmp_add, (atomic64_t *)p);
	sroce_mr_unmap(mr, va);
	*orig = old;
	return 0;
}
