# lib.sh -- shared helpers of the accountant oracle scripts (sourced, not run).
#
# Needs: root, a Debian trixie chroot with HTCondor 23.9 (Debian's `condor` /
# `minicondor` package) made by the anchor's setup-chroot.sh, and the anchor's
# pool.sh, which runs a personal pool inside that chroot (config in
# /etc/condor/condor_config.local, overrides in /etc/condor/anchor-override.config,
# state in /var/lib/condor-anchor, all inside the chroot).
#
# Configurable (environment):
#   ANCHOR_ROOT  chroot directory                 (default /tmp/anchor/trixie)
#   POOL_SH      path of the anchor's pool.sh     (default /work/shared/anchor/pool.sh)

ROOT=${ANCHOR_ROOT:-/tmp/anchor/trixie}
POOL_SH=${POOL_SH:-/work/shared/anchor/pool.sh}
export ANCHOR_ROOT=$ROOT
STATE=/var/lib/condor-anchor                 # inside the chroot
OVERRIDE=/etc/condor/anchor-override.config  # inside the chroot
NEGLOG=$ROOT$STATE/log/NegotiatorLog

say() { echo "[$(date -u +%T)] $*" >&2; }
die() { echo "error: $*" >&2; exit 1; }

# run a command inside the chroot with a clean environment
inchroot() {
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 TZ=UTC "$@"
}

# run a command inside the chroot as USER (cwd /tmp)
asuser() {
	local u=$1 uid gid; shift
	uid=$(inchroot id -u "$u"); gid=$(inchroot id -g "$u")
	chroot --userspec="$uid:$gid" --groups="$gid" "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/tmp LANG=C.UTF-8 TZ=UTC sh -c 'cd /tmp && exec "$@"' sh "$@"
}

ensure_user() {
	inchroot id "$1" >/dev/null 2>&1 || inchroot useradd -M -d /tmp -s /usr/sbin/nologin "$1"
}

# absolute host path of the negotiator's accountant log
acct_log() {
	local spool
	spool=$(inchroot condor_config_val SPOOL)
	echo "$ROOT$spool/Accountantnew.log"
}

n_cycles() { grep -c 'Finished Negotiation Cycle' "$NEGLOG" 2>/dev/null || echo 0; }

# wait until one more negotiation cycle has finished (timeout $1 s, default 120)
wait_cycle() {
	local before t=0 lim=${1:-120}
	before=$(n_cycles)
	while [ "$(n_cycles)" -le "$before" ]; do
		sleep 0.2; t=$((t + 1))
		[ $t -lt $((lim * 5)) ] || die "no negotiation cycle finished within $lim s"
	done
}

# the accountant knobs, from condor_config_val -dump (the pool's config)
dump_knobs() {
	inchroot condor_config_val -dump |
		grep -E '^(PRIORITY_HALFLIFE|[A-Z_]*PRIO_FACTOR[A-Z_]*|ACCOUNTANT_[A-Z_]*|SLOT_WEIGHT|NEGOTIATOR_USE_SLOT_WEIGHTS|MAX_ACCOUNTANT_DATABASE_SIZE|GROUP_[A-Z_]*|NEGOTIATOR_INTERVAL|UID_DOMAIN|NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES|NEGOTIATOR_CONSIDER_PREEMPTION|NICE_USER_ACCOUNTING_GROUP_NAME|CONCURRENCY_LIMIT_DEFAULT) ='
}

# the same knobs with HTCondor's built-in defaults only (no config files at all)
dump_default_knobs() {
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CONDOR_CONFIG=ONLY_ENV \
		condor_config_val -dump |
		grep -E '^(PRIORITY_HALFLIFE|[A-Z_]*PRIO_FACTOR[A-Z_]*|ACCOUNTANT_[A-Z_]*|SLOT_WEIGHT|NEGOTIATOR_USE_SLOT_WEIGHTS|MAX_ACCOUNTANT_DATABASE_SIZE|GROUP_[A-Z_]*|NEGOTIATOR_INTERVAL|NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES|NEGOTIATOR_CONSIDER_PREEMPTION|NICE_USER_ACCOUNTING_GROUP_NAME|USERPRIO_USE_NEGOTIATOR_MODULAR_QUERY|NEGOTIATOR_ADVERTISE_ACCOUNTING) ='
}

# snapshot DIR: everything the accountant's state can be checked against
snapshot() {
	local d=$1 log
	mkdir -p "$d"
	log=$(acct_log)
	date -u +%s > "$d/epoch"
	cp "$log" "$d/Accountantnew.log"
	inchroot condor_userprio -allusers -l                 > "$d/userprio-allusers-l.txt" 2>&1 || true
	inchroot condor_userprio                              > "$d/userprio.txt" 2>&1 || true
	inchroot condor_userprio -all                         > "$d/userprio-all.txt" 2>&1 || true
	inchroot condor_userprio -allusers                    > "$d/userprio-allusers.txt" 2>&1 || true
	inchroot condor_userprio -allusers -all               > "$d/userprio-allusers-all.txt" 2>&1 || true
	inchroot condor_userprio -usage                       > "$d/userprio-usage.txt" 2>&1 || true
	inchroot condor_userprio -allusers -usage             > "$d/userprio-allusers-usage.txt" 2>&1 || true
	inchroot condor_userprio -priority                    > "$d/userprio-priority.txt" 2>&1 || true
	inchroot condor_userprio -most                        > "$d/userprio-most.txt" 2>&1 || true
	inchroot condor_userprio -quotas                      > "$d/userprio-quotas.txt" 2>&1 || true
	inchroot condor_userprio -l -modular                  > "$d/userprio-l-modular.txt" 2>&1 || true
	if [ "${SNAPSHOT_GROUP_TABLES:-0}" = 1 ]; then
		inchroot condor_userprio -allusers -hierarchical  > "$d/userprio-allusers-hierarchical.txt" 2>&1 || true
		inchroot condor_userprio -allusers -flat          > "$d/userprio-allusers-flat.txt" 2>&1 || true
		inchroot condor_userprio -allusers -grouporder    > "$d/userprio-allusers-grouporder.txt" 2>&1 || true
		inchroot condor_userprio -allusers -grouprollup   > "$d/userprio-allusers-grouprollup.txt" 2>&1 || true
		inchroot condor_userprio -allusers -quotas        > "$d/userprio-allusers-quotas.txt" 2>&1 || true
		inchroot condor_userprio -allusers -priority      > "$d/userprio-allusers-priority.txt" 2>&1 || true
		inchroot condor_userprio -allusers -grouprollup -l > "$d/userprio-allusers-grouprollup-l.txt" 2>&1 || true
	fi
	inchroot condor_status -negotiator -l                 > "$d/negotiator-ad.txt" 2>&1 || true
	inchroot condor_status -l                             > "$d/slots-l.txt" 2>&1 || true
	inchroot condor_status -af:h Name State Activity Cpus SlotWeight RemoteUser RemoteOwner AccountingGroup EnteredCurrentState \
		> "$d/slots-summary.txt" 2>&1 || true
	inchroot condor_q -allusers -af:h ClusterId ProcId Owner RequestCpus JobStatus JobStartDate RemoteHost \
		> "$d/queue.txt" 2>&1 || true
	date -u +%s > "$d/epoch-end"
	dump_knobs > "$d/knobs.txt" 2>&1 || true
	# the NegotiatorLog lines of the cycle just finished
	awk '/Started Negotiation Cycle/{buf=""} {buf=buf $0 "\n"} END{printf "%s", buf}' "$NEGLOG" > "$d/cycle.log"
	say "snapshot $d taken (epoch $(cat "$d/epoch"))"
}
