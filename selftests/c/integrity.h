// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * integrity.h: what integrity.c's parts share: the work requests a round
 * is made of, the buffers with their shadow copies, and the QP pairs.
 * integrity_work.c plans and posts a round, integrity_check.c reaps and
 * checks it; integrity.c holds the test cases and main().
 */
#ifndef SROCE_INTEGRITY_H
#define SROCE_INTEGRITY_H

#include "verbs_util.h"

#define NSGE		16		/* SGEs per WR, at most */
#define BUF_LEN		(2u << 20)	/* each side's MR, per pair */
#define GUARD		4096		/* bytes outside the MR, each end */
#define ATOM_SLOTS	16		/* u64 counters at the MR's start */
#define OPS_MAX		12		/* WRs per pair per round */
#define MAX_INLINE	256
#define CQ_DEPTH	1024
#define WAIT_MS		30000		/* default of wait_ms (-w) */
#define LOG_MAX		20		/* mismatches logged per test */

enum op_kind {
	OP_SEND, OP_SEND_IMM, OP_SEND_INLINE, OP_WRITE, OP_WRITE_IMM,
	OP_WRITE_INLINE, OP_READ, OP_CMP_SWP, OP_FETCH_ADD, OP_KINDS,
	OP_UC_KINDS = OP_READ,		/* UC: SENDs and WRITEs only */
};

struct op_kind_info {
	const char *name;
	enum ibv_wr_opcode wr;
	enum ibv_wc_opcode wc;
	bool recv;		/* consumes a receive WQE */
	bool imm;
	bool inl;
};
extern const struct op_kind_info kinds[OP_KINDS];

/* Registered memory with guard bytes around it, and its expected content */
struct buf {
	uint8_t *mem;		/* GUARD+ bytes, the MR, GUARD- bytes */
	uint8_t *shadow;	/* what every byte of mem must hold */
	uint8_t *base;		/* the MR's first byte */
	size_t size;		/* of mem */
	struct ibv_mr *mr;
	size_t next;		/* allocation cursor in the MR, this round */
};

struct op {
	enum op_kind kind;
	uint32_t len;
	bool signaled;
	int nsge;
	struct ibv_sge sge[NSGE];	/* the requester's */
	uint64_t raddr;			/* RDMA and atomics */
	uint32_t imm;
	uint64_t cmp, arg;		/* compare; swap or add */
	int rnsge;			/* the receive WQE it consumes */
	struct ibv_sge rsge[NSGE];
};

/* A device context of the test, with a send and a receive CQ */
struct side {
	struct vu_dev dev;
	struct ibv_cq *scq, *rcq;
};

/* A requester QP and its responder, and this round's work */
struct pair {
	struct side *rq, *rs;
	struct ibv_qp *req, *resp;
	struct buf rbuf, sbuf;		/* the requester's, the responder's */
	uint64_t atom[ATOM_SLOTS];	/* model of the responder's counters */
	uint32_t mtu;			/* bytes */
	uint32_t max_inline;
	struct op op[OPS_MAX];
	int nops;
	int sig[OPS_MAX], nsig, sig_seen;	/* signaled ops, in order */
	int rcv[OPS_MAX], nrcv, rcv_seen;	/* receiving ops, in order */
	bool broken;			/* a WR failed: expect no more */
	int last_err;			/* -x: wr_id of the last error CQE */
};

/* -x: pairs that failed are expected to fail, not checked byte for byte */
extern bool expect_fail;
extern int wait_ms;	/* no completion for this long: hung (-w) */

/* integrity_work.c */
void side_close(struct side *s);
int side_open(struct side *s, const char *name);
int buf_init(struct buf *b, struct vu_dev *d, struct vu_rng *rng,
	     unsigned int access);
void buf_fini(struct buf *b);
uint8_t *shadow_of(struct buf *b, uint64_t addr);
void plan_round(struct pair *p, struct vu_rng *rng,
		enum ibv_qp_type type, uint32_t max_len, bool bulk,
		bool stream);
int post_round(struct pair *p, struct vu_rng *rng, bool stream);

/* integrity_check.c */
struct pair *pair_of(struct pair *pairs, int n, uint32_t qpn,
		     bool send);
int reap(struct side *sides, struct pair *pairs, int npairs,
	 int *logged);
void expect_round(struct pair *p);
int check_buf(struct pair *p, int pi, struct buf *b, const char *who,
	      int *logged);

#endif
