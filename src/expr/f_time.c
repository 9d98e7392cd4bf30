/* placeholder */
#include "expr/expr_internal.h"
const xfunc weir__funcs_time[] = {{NULL, NULL, NULL, 0}};
