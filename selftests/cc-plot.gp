# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# cc-plot.gp: selftests/cc-demo's picture. Variables (gnuplot -e): dir,
# rate (Mbit/s), kmin, kmax (bytes), toff, ton (titles), has_off, has_on.
# Reads dir/off.dat and dir/on.dat (cc.py analyze --dat), writes
# dir/cc-demo.png: per-flow rates above, the bottleneck queue below; DCQCN
# off on the left, on on the right.

set terminal pngcairo size 1600,900 font ",10"
set output dir . "/cc-demo.png"
set multiplot layout 2,2 columnsfirst
set grid
set key top right
set xlabel "s"

do for [m in "off on"] {
	f = dir . "/" . m . ".dat"
	has = (m eq "off") ? has_off : has_on
	set title ((m eq "off") ? toff : ton)
	set ylabel "Mbit/s (sender's wire rate)"
	set yrange [0:(rate * 1.2) < *]
	unset y2tics
	if (has) {
		plot f using 1:2 with lines lw 1.5 title "flow 1", \
		     f using 1:3 with lines lw 1.5 title "flow 2", \
		     f using 1:4 with lines lw 1.5 title "flow 3 (late)", \
		     f using 1:5 with lines lw 1 dt 2 lc "black" title "bottleneck out", \
		     rate with lines lc "red" dt 3 title sprintf("htb rate %g Mbit/s", rate)
	} else {
		set label 1 "no data" at graph 0.5, 0.5 center
		set xrange [0:1]
		set yrange [0:1]
		plot -1 notitle
		set xrange [*:*]
		unset label 1
	}
	set title "bottleneck queue (" . m . ")"
	set ylabel "backlog KB"
	set yrange [0:(kmax * 1.5 / 1000) < *]
	if (has) {
		set y2label "cumulative count"
		set y2tics
		set y2range [0:*]
		plot f using 1:6 with lines lw 1.5 title "backlog", \
		     kmin / 1000.0 with lines dt 3 lc "dark-green" title "Kmin", \
		     kmax / 1000.0 with lines dt 3 lc "red" title "Kmax", \
		     f using 1:7 axes x1y2 with lines lc "black" title "drops", \
		     f using 1:8 axes x1y2 with lines lc "blue" title "ECN marks"
	} else {
		set label 1 "no data" at graph 0.5, 0.5 center
		set xrange [0:1]
		set yrange [0:1]
		plot -1 notitle
		set xrange [*:*]
		unset label 1
	}
	unset y2label
	unset y2tics
}
unset multiplot
