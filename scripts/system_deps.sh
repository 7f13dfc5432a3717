#!/usr/bin/env bash
# What labs need from the system: bubblewrap (isolates learner code) and redis-server (the broker
# `make run` starts under var/). As root with apt-get: install what is missing (one quiet
# `apt-get update`). Otherwise: one line saying what to install, and exit 1.
#   --optional  warn instead of failing (make test: tests that need them skip with the reason)
#   --dry-run   say what would be installed, change nothing
#   --worker    a grading host that joins another's broker (make join): bubblewrap only
set -uo pipefail
optional=0 dry=0 worker=0
for arg in "$@"; do
  case "$arg" in --optional) optional=1 ;; --dry-run) dry=1 ;; --worker) worker=1 ;; esac
done
[ "${SYSTEM_DEPS_DRY_RUN:-0}" = 1 ] && dry=1

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[ "$worker" = 1 ] || command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    if [ "$dry" = 1 ]; then
      echo "==> would run: apt-get update -qq && apt-get install -y -qq --no-install-recommends ${missing[*]}"
      exit 0
    fi
    echo "==> installing ${missing[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
      echo "!! apt-get could not install ${missing[*]}; install them by hand and run this again" >&2
      [ "$optional" = 1 ] && exit 0 || exit 1
    fi
  else
    line="!! missing: ${missing[*]}. Install them (Debian/Ubuntu: sudo apt-get install ${missing[*]}; Fedora: sudo dnf install ${missing[*]/redis-server/redis}) and run this again."
    if [ "$optional" = 1 ]; then
      echo "$line (tests that need them skip)" >&2
      exit 0
    fi
    echo "$line" >&2
    exit 1
  fi
fi

# Present is not enough: a container without user namespaces cannot use bwrap. Labs then say
# "grading is unavailable" (and /healthz says labs are down) rather than run code unisolated.
if [ "$dry" = 0 ] && command -v bwrap >/dev/null 2>&1 \
   && ! bwrap --ro-bind / / --unshare-net --unshare-pid --dev /dev --proc /proc true >/dev/null 2>&1; then
  echo "!! bubblewrap cannot create namespaces here (a container without user namespaces?); labs will be" \
       "unavailable until it can (docker: --cap-add SYS_ADMIN --security-opt seccomp=unconfined)." >&2
fi
exit 0
