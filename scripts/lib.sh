# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by the scripts in this folder: where the cache lives, logging.

CM_CACHE=${CM_CACHE:-/var/cache/rdma-cm}

log() { echo "[$(date +%T)] $*" >&2; }
die() { echo "error: $*" >&2; exit 1; }
