# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# shellcheck shell=dash # busybox ash; sourced by t/50-live-zombie.sh
# The oldest kernel of the matrix (Debian 11's 5.10, kernel/matrix
# lacks=live-frames,bpf-loop,bpf-atomics): no driver of the guest uses
# page_pool and there are no live frames, so no pool can be made. Every
# command runs anyway, on none: what this kernel's BPF can serve (counters:
# pools, top, watch, stacks, check rules, export) exits 0 with nothing
# found and says once what the kernel cannot report; what it cannot serve
# (holders, pages, record, postmortem, check --run) refuses in one line
# that names what the kernel lacks, never a verifier log.

# floor_refused NAME WHAT: the last ppw exited 2 with one line on stderr
# naming what this kernel lacks
floor_refused() {
	local err=/tmp/$1.err
	check "ppwatch $2 on $FLAVOR: refused (exit 2)" "$PPW_RC" -eq 2
	check "ppwatch $2: refused in one line" "$(grep -c . "$err")" -eq 1 ||
		log "stderr: $(head -c 800 "$err" | tr '\n' ' ')"
	if lacks bpf-loop; then
		check "ppwatch $2: refused, naming the bpf_loop helper" "$(grep -c 'bpf_loop' "$err")" -eq 1
	fi
	if lacks bpf-atomics; then
		check "ppwatch $2: refused, naming the atomic instructions" "$(grep -c 'atomic' "$err")" -eq 1
	fi
	check "ppwatch $2: refused without a verifier log" "$(grep -c -i 'verifier\|reserved fields\|processed [0-9]* insns' "$err")" -eq 0
}

floor_every_command() {
	local g
	# every command at once (their loads side by side on both vCPUs);
	# watch across them all
	ppw_bg f_watch watch -j 600
	ppw_par f_pools pools -j
	ppw_par f_pools_txt pools
	ppw_par f_top top -b -j 0.5 2
	ppw_par f_stacks stacks -j 1
	printf 'version: 1\nrules:\n  - name: small\n    max_inflight: 100\n' >/tmp/small.yaml
	ppw_par f_check check -f /tmp/small.yaml -j
	ppw_par f_export export --once
	# what needs the holder scan or the page ledger
	ppw_par f_holders holders -j
	ppw_par f_pages pages 1 -j
	[ -d /tmp/rec.d ] || mkdir -m 0700 /tmp/rec.d
	ppw_par f_record record -o /tmp/rec.d/f.rec 1
	ppw_par f_pm postmortem -j
	ppw_par f_run check --run true --deadline 1 -j
	ppw_par_wait f_pools f_pools_txt f_top f_stacks f_check f_export f_holders f_pages f_record f_pm f_run
	# no pool to age here: what would date a zombie's pages is in the
	# kernel's BTF all the same, pool->defer_start (the programs read it by
	# CO-RE, model/ages.h)
	ppw f_feat -d pools
	check "ppwatch -d pools: struct page_pool has defer_start (a destroy's date, by BTF)" \
		"$(grep -c 'defer_start=1' /tmp/f_feat.err)" -eq 1
	ppw_bg_stop f_watch
	check "ppwatch watch: exit status after SIGINT" "$PPW_RC" -eq 0
	check "ppwatch watch: no event (no pool)" "$(grep -c . /tmp/f_watch.out)" -eq 0
	ppw_rc f_pools
	if ppw_ok f_pools "ppwatch pools -j"; then
		regime_check /tmp/f_pools.out
		check "ppwatch pools -j: no pool (no page_pool user in this guest)" "$(jq '.pools | length' /tmp/f_pools.out)" -eq 0
		check "ppwatch pools -j: loaded with tp_btf programs" "$(jq -r .kernel.attach /tmp/f_pools.out)" = tp_btf
		for g in page_ages:bpf-atomics discovery:bpf-loop pool_ids:pp-netlink; do
			lacks "${g#*:}" || continue
			check "ppwatch pools -j: .kernel.unavailable names ${g%%:*} (lacks ${g#*:})" \
				"$(jq --arg g "${g%%:*}" '.kernel.unavailable | index($g) != null' /tmp/f_pools.out)" = true
		done
	fi
	ppw_rc f_pools_txt
	ppw_ok f_pools_txt "ppwatch pools (text)"
	check "ppwatch pools (text): what this kernel cannot report, said once" "$(grep -c 'cannot report' /tmp/f_pools_txt.err)" -eq 1
	ppw_rc f_top
	if ppw_ok f_top "ppwatch top -b -j 0.5 2"; then
		check "ppwatch top: one JSON object per interval" "$(jq -s 'length' /tmp/f_top.out)" -eq 2
		check "ppwatch top: no pool" "$(jq -s '[.[].pools | length] | add' /tmp/f_top.out)" -eq 0
	fi
	ppw_rc f_stacks
	if ppw_ok f_stacks "ppwatch stacks -j 1"; then
		check "ppwatch stacks: no pool" "$(jq '.pools | length' /tmp/f_stacks.out)" -eq 0
		check "ppwatch stacks: no stack lost" "$(jq .sampling.stacks_lost /tmp/f_stacks.out)" -eq 0
	fi
	ppw_rc f_check
	check "ppwatch check max_inflight 100: exit 0 (no pool breaks it)" "$PPW_RC" -eq 0
	check "ppwatch check: result" "$(jq -r .result /tmp/f_check.out)" = pass
	check "ppwatch check: pools checked" "$(jq '.checks[0].pools_checked' /tmp/f_check.out)" -eq 0
	ppw_rc f_export
	if ppw_ok f_export "ppwatch export --once"; then
		check "ppwatch export: ppwatch_pools{state=\"live\"} 0" \
			"$(sed -n 's/^ppwatch_pools{state="live"} //p' /tmp/f_export.out)" -eq 0
		check "ppwatch export: no per-pool series" "$(grep -c '^ppwatch_pool_inflight_pages{' /tmp/f_export.out)" -eq 0
	fi
	ppw_rc f_holders
	floor_refused f_holders holders
	ppw_rc f_pages
	floor_refused f_pages "pages 1"
	ppw_rc f_record
	floor_refused f_record record
	ppw_rc f_pm
	floor_refused f_pm postmortem
	ppw_rc f_run
	floor_refused f_run "check --run"
	echo "PPVM-VALUES: floor kernel=$(uname -r) unavailable=$(jq -r '.kernel.unavailable | join(",")' /tmp/f_pools.out 2>/dev/null) refusal=\"$(head -n1 /tmp/f_holders.err)\""
}
