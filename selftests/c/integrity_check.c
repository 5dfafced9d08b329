// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * integrity_check.c: integrity's checks: every completion against the
 * round's plan, the round's expected effect applied to the shadows, and
 * every byte of the buffers against them.
 */
#include "integrity.h"

struct pair *pair_of(struct pair *pairs, int n, uint32_t qpn,
		     bool send)
{
	int i;

	for (i = 0; i < n; i++)
		if ((send ? pairs[i].req : pairs[i].resp)->qp_num == qpn)
			return &pairs[i];
	return NULL;
}

/*
 * -x: a send completion of a pair that ran out of retries: first its
 * oldest outstanding WR with IBV_WC_RETRY_EXC_ERR (after the signaled ones
 * before it succeeded), then every later WR of the round, signaled or
 * not, flushed, in order. 0 if @wc is what comes next.
 */
static int check_failed_wc(struct pair *p, int pi, const struct ibv_wc *wc,
			   int *logged)
{
	enum ibv_wc_status want = p->broken ? IBV_WC_WR_FLUSH_ERR :
					      IBV_WC_RETRY_EXC_ERR;
	int lo = p->broken ? p->last_err + 1 : 0;
	bool ok = wc->status == want && wc->qp_num == p->req->qp_num &&
		  (int64_t)wc->wr_id >= lo && wc->wr_id < (uint64_t)p->nops &&
		  (!p->broken || wc->wr_id == (uint64_t)lo);

	/* the failed WR comes after every signaled one already completed */
	if (!p->broken && p->sig_seen &&
	    wc->wr_id <= (uint64_t)p->sig[p->sig_seen - 1])
		ok = false;
	if (!ok && (*logged)++ < LOG_MAX)
		vu_diag("pair %d: send completion wr_id %llu status %s qp_num %u; expected %s, wr_id %s%d of %d",
			pi, (unsigned long long)wc->wr_id,
			vu_wc_status(wc->status), wc->qp_num,
			vu_wc_status(want), p->broken ? "" : ">= ", lo,
			p->nops);
	p->broken = true;
	p->last_err = wc->wr_id;
	return !ok;
}

/* the send side of a pair is finished with the round */
static bool send_done(const struct pair *p)
{
	if (expect_fail && p->broken)
		return p->last_err >= p->nops - 1;
	return p->sig_seen == p->nsig;
}

/* Check a completion against what @p expects next; 0 if it matches. */
static int check_wc(struct pair *p, int pi, const struct ibv_wc *wc,
		    bool send, int *logged)
{
	const struct op *op;
	uint32_t len, flags = 0;
	int opc, idx;
	bool ok;

	if (send && expect_fail && (p->broken || wc->status != IBV_WC_SUCCESS))
		return check_failed_wc(p, pi, wc, logged);
	if (send ? p->sig_seen >= p->nsig : p->rcv_seen >= p->nrcv) {
		if ((*logged)++ < LOG_MAX)
			vu_diag("pair %d: unexpected %s completion: wr_id %llu status %s",
				pi, send ? "send" : "receive",
				(unsigned long long)wc->wr_id,
				vu_wc_status(wc->status));
		return 1;
	}
	if (wc->status != IBV_WC_SUCCESS)
		p->broken = true;	/* the rest is flushed, or never comes */
	if (send) {
		idx = p->sig[p->sig_seen++];
		op = &p->op[idx];
		opc = kinds[op->kind].wc;
		len = op->kind == OP_READ ? op->len : 8;
		ok = wc->qp_num == p->req->qp_num &&
		     (op->kind < OP_READ || wc->byte_len == len);
	} else {
		idx = p->rcv_seen++;
		op = &p->op[p->rcv[idx]];
		opc = op->kind == OP_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM :
						 IBV_WC_RECV;
		len = op->len;
		flags = kinds[op->kind].imm ? IBV_WC_WITH_IMM : 0;
		ok = wc->qp_num == p->resp->qp_num &&
		     wc->src_qp == p->req->qp_num && wc->byte_len == len &&
		     (!flags || wc->imm_data == htonl(op->imm));
	}
	ok = ok && wc->status == IBV_WC_SUCCESS && wc->wr_id == (uint64_t)idx &&
	     (int)wc->opcode == opc && wc->wc_flags == flags;
	if (ok)
		return 0;
	if ((*logged)++ < LOG_MAX)
		vu_diag("pair %d: %s completion of %s (%u bytes): status %s wr_id %llu opcode %d byte_len %u wc_flags %#x imm %#x qp_num %u src_qp %u; expected status success wr_id %d opcode %d byte_len %u wc_flags %#x imm %#x qp_num %u src_qp %u",
			pi, send ? "send" : "receive", kinds[op->kind].name,
			op->len, vu_wc_status(wc->status),
			(unsigned long long)wc->wr_id, wc->opcode,
			wc->byte_len, wc->wc_flags, ntohl(wc->imm_data),
			wc->qp_num, wc->src_qp, idx, opc, len, flags, op->imm,
			send ? p->req->qp_num : p->resp->qp_num,
			p->req->qp_num);
	return 1;
}

/*
 * Wait until every pair has all its completions, checking each one.
 * Return: the number of mismatches, plus one per missing completion.
 */
int reap(struct side *sides, struct pair *pairs, int npairs,
	 int *logged)
{
	struct timespec last;
	struct ibv_wc wc[64];
	int bad = 0, done, i, k, n, c;

	clock_gettime(CLOCK_MONOTONIC, &last);
	for (;;) {
		for (done = 0, i = 0; i < npairs; i++)
			done += expect_fail && pairs[i].broken ?
				send_done(&pairs[i]) :
				pairs[i].broken ||
				(pairs[i].sig_seen == pairs[i].nsig &&
				 pairs[i].rcv_seen == pairs[i].nrcv);
		if (done == npairs)
			return bad;
		for (k = 0; k < 4; k++) {
			struct side *s = &sides[k / 2];
			bool send = !(k & 1);

			n = ibv_poll_cq(send ? s->scq : s->rcq, 64, wc);
			if (n < 0)
				return bad + 1;
			if (n)
				clock_gettime(CLOCK_MONOTONIC, &last);
			for (c = 0; c < n; c++) {
				struct pair *p = pair_of(pairs, npairs,
							 wc[c].qp_num, send);

				if (!p) {
					if ((*logged)++ < LOG_MAX)
						vu_diag("completion for unknown QP %u",
							wc[c].qp_num);
					bad++;
					continue;
				}
				bad += check_wc(p, p - pairs, &wc[c], send,
						logged);
			}
		}
		if (vu_ms_since(&last) > wait_ms)
			break;
	}
	for (i = 0; i < npairs; i++) {
		struct pair *p = &pairs[i];

		if (expect_fail && p->broken) {
			if (send_done(p))
				continue;
			vu_diag("pair %d: failed, but WRs %d to %d were not flushed in %d s",
				i, p->last_err + 1, p->nops - 1,
				wait_ms / 1000);
			bad += p->nops - 1 - p->last_err;
			continue;
		}
		if (p->broken ||
		    (p->sig_seen == p->nsig && p->rcv_seen == p->nrcv))
			continue;
		vu_diag("pair %d: no completion for %d s: %d of %d send and %d of %d receive completions",
			i, wait_ms / 1000, p->sig_seen, p->nsig, p->rcv_seen,
			p->nrcv);
		for (k = 0; k < p->nops; k++)
			vu_diag("  op %d: %s, %u bytes, %d SGEs%s", k,
				kinds[p->op[k].kind].name, p->op[k].len,
				p->op[k].nsge,
				p->op[k].signaled ? ", signaled" : "");
		bad += p->nsig - p->sig_seen + p->nrcv - p->rcv_seen;
	}
	return bad;
}

static uint8_t msg[BUF_LEN];	/* one message, gathered */

/* Gather @nsge SGEs' bytes from @b's shadow into msg[]. */
static void gather(struct buf *b, const struct ibv_sge *sge, int nsge)
{
	uint32_t off = 0;
	int i;

	for (i = 0; i < nsge; i++) {
		memcpy(msg + off, shadow_of(b, sge[i].addr), sge[i].length);
		off += sge[i].length;
	}
}

/* Scatter the first @len bytes of msg[] over SGEs in @b's shadow. */
static void scatter(struct buf *b, const struct ibv_sge *sge, int nsge,
		    uint32_t len)
{
	uint32_t off = 0, n;
	int i;

	for (i = 0; i < nsge && off < len; i++) {
		n = len - off < sge[i].length ? len - off : sge[i].length;
		memcpy(shadow_of(b, sge[i].addr), msg + off, n);
		off += n;
	}
}

/* Apply the effect every op of the round must have had to the shadows. */
void expect_round(struct pair *p)
{
	uint64_t cur, next;
	int i;

	for (i = 0; i < p->nops; i++) {
		struct op *op = &p->op[i];

		switch (op->kind) {
		case OP_SEND:
		case OP_SEND_IMM:
		case OP_SEND_INLINE:
			gather(&p->rbuf, op->sge, op->nsge);
			scatter(&p->sbuf, op->rsge, op->rnsge, op->len);
			break;
		case OP_WRITE:
		case OP_WRITE_IMM:
		case OP_WRITE_INLINE:
			gather(&p->rbuf, op->sge, op->nsge);
			memcpy(shadow_of(&p->sbuf, op->raddr), msg, op->len);
			break;
		case OP_READ:
			memcpy(msg, shadow_of(&p->sbuf, op->raddr), op->len);
			scatter(&p->rbuf, op->sge, op->nsge, op->len);
			break;
		default:
			memcpy(&cur, shadow_of(&p->sbuf, op->raddr), 8);
			if (op->kind == OP_FETCH_ADD)
				next = cur + op->arg;
			else
				next = cur == op->cmp ? op->arg : cur;
			memcpy(shadow_of(&p->sbuf, op->raddr), &next, 8);
			memcpy(shadow_of(&p->rbuf, op->sge[0].addr), &cur, 8);
			break;
		}
	}
}

/* Which of the round's ops touch @addr of @b? For the diagnostics. */
static void blame(struct pair *p, struct buf *b, uint64_t addr)
{
	int i, j;

	for (i = 0; i < p->nops; i++) {
		struct op *op = &p->op[i];
		bool hit = b == &p->sbuf && op->raddr <= addr &&
			   addr < op->raddr + (op->kind >= OP_CMP_SWP ? 8 :
					       op->len);

		for (j = 0; j < op->nsge && b == &p->rbuf; j++)
			hit |= op->sge[j].addr <= addr &&
			       addr < op->sge[j].addr + op->sge[j].length;
		for (j = 0; j < op->rnsge && b == &p->sbuf; j++)
			hit |= op->rsge[j].addr <= addr &&
			       addr < op->rsge[j].addr + op->rsge[j].length;
		if (hit)
			vu_diag("  within op %d: %s, %u bytes, %d/%d SGEs", i,
				kinds[op->kind].name, op->len, op->nsge,
				op->rnsge);
	}
}

/* Compare every byte of @b, guards included, with its shadow. */
int check_buf(struct pair *p, int pi, struct buf *b, const char *who,
	      int *logged)
{
	long off = vu_first_diff(b->mem, b->shadow, b->size);
	long mr = b->base - b->mem;
	size_t i, n = 0;

	if (off < 0)
		return 0;
	for (i = off; i < b->size; i++)
		n += b->mem[i] != b->shadow[i];
	if ((*logged)++ < LOG_MAX) {
		vu_diag("pair %d: %s memory: %zu bytes differ, the first at MR offset %ld (%s): %#04x, expected %#04x",
			pi, who, n, off - mr,
			off < mr || off >= mr + BUF_LEN ? "OUTSIDE the MR" :
			"in the MR", b->mem[off], b->shadow[off]);
		blame(p, b, (uintptr_t)b->mem + off);
	}
	/* start the next round from what is there, to report once */
	memcpy(b->shadow, b->mem, b->size);
	return 1;
}
