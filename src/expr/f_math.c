/* placeholder */
#include "expr/expr_internal.h"
const xfunc weir__funcs_math[] = {{NULL, NULL, NULL, 0}};
