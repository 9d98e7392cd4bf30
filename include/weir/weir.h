/* weir/weir.h - the whole public API. */
#ifndef WEIR_H
#define WEIR_H
#include "weir/common.h"
#include "weir/schema.h"
#include "weir/batch.h"
#include "weir/buf.h"
#include "weir/clock.h"
#include "weir/key.h"
#include "weir/operator.h"
#include "weir/state.h"
#include "weir/source.h"
#include "weir/job.h"
#include "weir/agg.h"
#include "weir/window.h"
#include "weir/format.h"
#include "weir/connector.h"
#include "weir/checkpoint.h"
#include "weir/planner.h"
#endif
