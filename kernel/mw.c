// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mw.c: memory windows, and the rkeys that peers name.
 *
 * A window is a struct sroce_mr of kind SROCE_MR_WINDOW, with a key in the
 * upper half of the key space (mr.h). It is FREE until a bind makes it
 * VALID: then its key opens a range of the MR it is bound to, with rights
 * of its own. A type 1 window is bound by ibv_bind_mw() (the provider
 * posts the bind, IB_UVERBS_WR_BIND_MW) and unbound by a bind of length
 * 0; a type 2 window (2B) by IB_UVERBS_WR_BIND_MW, to the QP that posts
 * it, and freed by LOCAL_INV or by a SEND with invalidate on that QP.
 * Binding and invalidation close the window first (sroce_mr_close()): no
 * packet moves through the old binding once they complete. An MR that
 * windows are bound to cannot be deregistered, registered again or
 * invalidated (-EBUSY or an error completion).
 */
#include <linux/slab.h>

#include "core/sgl.h"
#include "device.h"
#include "mr.h"
#include "mw.h"

/**
 * sroce_alloc_mw() - alloc_mw: a type 1 or type 2 (2B) window, unbound
 * @ibmw: the core's object, with type and PD
 * @udata: unused
 *
 * Return: 0, -EINVAL for another type, or -ENOMEM.
 */
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	struct sroce_mr *win;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	/* Not in the core's object, which it frees at once after dealloc */
	win = sroce_mr_alloc(SROCE_MR_WINDOW, 0, 0, 0);
	if (!win)
		return -ENOMEM;
	win->mw_type = ibmw->type;
	win->ibmr.pd = ibmw->pd;
	err = sroce_mr_add_key(sdev, win);
	if (err) {
		kfree(win);
		return err;
	}
	ibmw->rkey = win->key;
	mw->win = win;
	return 0;
}

/* Unbind a closed window from its MR. */
static void sroce_mw_unbind(struct sroce_mr *win)
{
	if (win->bound)
		atomic_dec(&win->bound->windows);
	win->bound = NULL;
}

int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_mr *win = to_smw(ibmw)->win;

	sroce_mr_remove(to_sdev(ibmw->device), win);
	sroce_mw_unbind(win);
	kfree_rcu(win, rcu);
	return 0;
}

/*
 * Close @win for a change, VALID or FREE. Return: true when it was VALID
 * (bound).
 */
static bool sroce_mw_take(struct sroce_mr *win)
{
	for (;;) {
		if (sroce_mr_close(win, 1))
			return true;
		if (cmpxchg(&win->state, SROCE_MR_FREE, SROCE_MR_BUSY) ==
		    SROCE_MR_FREE)
			return false;
		cpu_relax();		/* another closing ends first */
	}
}

/* The checks of a bind against its MR (IBTA 10.6.7.2), or -EINVAL. */
static int sroce_mw_bind_check(const struct sroce_mr *win,
			       const struct sroce_mr *mr,
			       const struct sroce_send_wqe *w)
{
	int rights = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
		     IB_ACCESS_REMOTE_ATOMIC;
	u32 access = w->wr.bind.access;

	if (access & ~rights)		/* zero-based windows included */
		return -EINVAL;
	if (mr->ibmr.pd != win->ibmr.pd ||		/* C10-72 */
	    !(mr->access & IB_ACCESS_MW_BIND))		/* C10-73 */
		return -EINVAL;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))	/* C10-74 */
		return -EINVAL;
	if (!sroce_range_in(mr->iova, mr->length, w->wr.bind.addr,
			    w->wr.bind.length))		/* C10-75 */
		return -EINVAL;
	return 0;
}

/**
 * sroce_mw_bind() - run a bind work request
 * @sdev: the device
 * @pd: the PD of the QP that posted it
 * @qpn: that QP's number
 * @w: the WQE: the window's new rkey (only its key byte may change), the
 *     MR's lkey, the range and the rights
 *
 * The requester's context (sq_lock held, bottom halves off). A type 1
 * window may be bound again (its old binding ends first) or unbound
 * (length 0); a type 2 window must be free, of the QP's PD, is bound to
 * this QP and has a length (o10-37.2.30). The MR must be of the window's
 * PD.
 * Return: 0, or -EINVAL (the WQE completes with IB_WC_MW_BIND_ERR).
 */
int sroce_mw_bind(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn,
		  const struct sroce_send_wqe *w)
{
	u32 rkey = w->wr.bind.mw_rkey;
	struct sroce_mr *win, *mr = NULL;
	bool type2;
	int err = -EINVAL;

	win = sroce_key_is_mw(rkey) ? sroce_mr_find(sdev, rkey) : NULL;
	if (!win)
		return -EINVAL;
	type2 = win->mw_type == IB_MW_TYPE_2;
	/* C10-72, o10-37.2.40: a type 2 window of the QP's PD, and a range */
	if (type2 && (win->ibmr.pd != pd || !w->wr.bind.length))
		goto out;
	if (w->wr.bind.length) {
		mr = sroce_mr_get(sdev, w->wr.bind.mr_lkey);
		if (!mr || sroce_mw_bind_check(win, mr, w))
			goto out;
	}
	if (sroce_mw_take(win)) {
		if (type2) {		/* a type 2 window must be free */
			sroce_mr_reopen(win, SROCE_MR_VALID);
			goto out;
		}
		sroce_mw_unbind(win);
	}
	win->key = rkey;
	if (!mr) {
		sroce_mr_reopen(win, SROCE_MR_FREE);
		err = 0;
		goto out;
	}
	atomic_inc(&mr->windows);
	win->bound = mr;
	win->iova = w->wr.bind.addr;
	win->length = w->wr.bind.length;
	win->access = w->wr.bind.access;
	win->qpn = qpn;
	sroce_mr_reopen(win, SROCE_MR_VALID);
	err = 0;
out:
	if (mr)
		sroce_mr_put(mr);
	sroce_mr_put(win);
	return err;
}

/**
 * sroce_rkey_get() - what an rkey opens, for one packet
 * @sdev: the device
 * @pd: the PD of the QP it came to
 * @qpn: that QP's number
 * @rkey: the key
 * @va: the first byte asked for
 * @len: bytes
 * @access: the IB_ACCESS_REMOTE_* right needed
 * @ref: set to the MR to copy with (at @va) and the window, if any,
 *	 both held until sroce_rkey_put()
 *
 * An MR's key: its PD, rights and range. A window's: its PD, its QP
 * (type 2), its own rights and range; then its MR's memory, which the
 * bind checked. Bottom halves off, for one packet (sroce_key_get()).
 * Return: 0, -EACCES (no such key, wrong PD, QP or rights) or -EFAULT
 * (out of range).
 */
int sroce_rkey_get(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn,
		   u32 rkey, u64 va, u64 len, int access,
		   struct sroce_rkey_ref *ref)
{
	struct sroce_mr *k = sroce_key_get(sdev, rkey);
	int err;

	ref->mr = NULL;
	ref->win = NULL;
	if (!k)
		return -EACCES;
	err = sroce_mr_check(k, pd, va, len, access);
	if (!err && k->kind == SROCE_MR_WINDOW &&
	    k->mw_type == IB_MW_TYPE_2 && k->qpn != qpn)
		err = -EACCES;
	if (err) {
		sroce_mr_put(k);
		return err;
	}
	if (k->kind != SROCE_MR_WINDOW) {
		ref->mr = k;
		return 0;
	}
	/* Bound: the MR cannot go or close while the window holds it. */
	ref->win = k;
	ref->mr = k->bound;
	kref_get(&ref->mr->ref);
	return 0;
}

void sroce_rkey_put(struct sroce_rkey_ref *ref)
{
	if (ref->mr)
		sroce_mr_put(ref->mr);
	if (ref->win)
		sroce_mr_put(ref->win);
	ref->mr = NULL;
	ref->win = NULL;
}

/* Invalidate a type 2 window (LOCAL_INV, or SEND with invalidate). */
static int sroce_mw_invalidate(struct sroce_mr *win, struct ib_pd *pd,
			       u32 qpn, u32 key, bool remote)
{
	bool bound;

	/* o10-37.2.26: type 1 windows are never invalidated */
	if (win->mw_type != IB_MW_TYPE_2 || win->ibmr.pd != pd ||
	    READ_ONCE(win->key) != key)
		return -EINVAL;
	bound = sroce_mw_take(win);
	/* A peer invalidates only through the QP the window is bound to. */
	if (bound && remote && win->qpn != qpn) {
		sroce_mr_reopen(win, SROCE_MR_VALID);
		return -EINVAL;
	}
	sroce_mw_unbind(win);
	sroce_mr_reopen(win, SROCE_MR_FREE);
	return 0;
}

/**
 * sroce_key_invalidate() - LOCAL_INV, or a received SEND with invalidate
 * @sdev: the device
 * @pd: the PD of the QP
 * @qpn: the QP's number
 * @key: the key to close: a fast-registration MR's (sroce_mr_invalidate())
 *	 or a type 2 window's
 * @remote: a SEND with invalidate asks
 *
 * Bottom halves off. Return: 0 or -EINVAL.
 */
int sroce_key_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn,
			 u32 key, bool remote)
{
	struct sroce_mr *win;
	int err;

	if (!sroce_key_is_mw(key))
		return sroce_mr_invalidate(sdev, pd, key);
	win = sroce_mr_find(sdev, key);
	if (!win)
		return -EINVAL;
	err = sroce_mw_invalidate(win, pd, qpn, key, remote);
	sroce_mr_put(win);
	return err;
}
