/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * poll.h: the polling CPU, an option (module parameter poll_cpu).
 */
#ifndef SROCE_POLL_H
#define SROCE_POLL_H

struct sroce_loop;

int sroce_poll_init(void);
void sroce_poll_exit(void);
void sroce_poll_add(struct sroce_loop *loop);
void sroce_poll_del(struct sroce_loop *loop);
int sroce_poll_cpu(void);
bool sroce_poll_here(void);
void sroce_poll_kick(void);

#endif /* SROCE_POLL_H */
