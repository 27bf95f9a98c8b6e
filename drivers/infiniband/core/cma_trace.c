// SPDX-License-Identifier: GPL-2.0
/*
 * Instantiates the tracepoints declared in cma_trace.h.
 */

#define CREATE_TRACE_POINTS
#include "cma_trace.h"
