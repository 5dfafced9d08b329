/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cc_trace.h: tracepoints of DCQCN (sroce:sroce_cnp_sent,
 * sroce:sroce_cnp_recv, sroce:sroce_cc_rate), for perf and bpftrace.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(SROCE_CC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SROCE_CC_TRACE_H

#include <linux/tracepoint.h>

#include "core/dcqcn.h"

TRACE_EVENT(sroce_cnp_sent,
	    TP_PROTO(const char *dev, u32 qpn, u32 dqpn),
	    TP_ARGS(dev, qpn, dqpn),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u32, qpn)
			     __field(u32, dqpn)),
	    TP_fast_assign(sroce_assign_str(dev, dev);
			   __entry->qpn = qpn;
			   __entry->dqpn = dqpn;),
	    TP_printk("%s qp %u to qp %u", __get_str(dev), __entry->qpn,
		      __entry->dqpn)
);

TRACE_EVENT(sroce_cnp_recv,
	    TP_PROTO(const char *dev, u32 qpn, bool handled),
	    TP_ARGS(dev, qpn, handled),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u32, qpn)
			     __field(bool, handled)),
	    TP_fast_assign(sroce_assign_str(dev, dev);
			   __entry->qpn = qpn;
			   __entry->handled = handled;),
	    TP_printk("%s qp %u %s", __get_str(dev), __entry->qpn,
		      __entry->handled ? "handled" : "ignored")
);

TRACE_EVENT(sroce_cc_rate,
	    TP_PROTO(const char *dev, u32 qpn, const struct sroce_dcqcn_rp *rp,
		     bool cut),
	    TP_ARGS(dev, qpn, rp, cut),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u32, qpn)
			     __field(u32, rc)
			     __field(u32, rt)
			     __field(u32, alpha)
			     __field(bool, limited)
			     __field(bool, cut)),
	    TP_fast_assign(sroce_assign_str(dev, dev);
			   __entry->qpn = qpn;
			   __entry->rc = rp->rc;
			   __entry->rt = rp->rt;
			   __entry->alpha = rp->alpha;
			   __entry->limited = rp->limited;
			   __entry->cut = cut;),
	    TP_printk("%s qp %u %s rate %u kbit/s target %u alpha %u%s",
		      __get_str(dev), __entry->qpn,
		      __entry->cut ? "cut" : "change", __entry->rc,
		      __entry->rt, __entry->alpha,
		      __entry->limited ? "" : " (unlimited)")
);

#endif /* SROCE_CC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cc_trace
#include <trace/define_trace.h>
