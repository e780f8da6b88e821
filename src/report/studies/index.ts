/**
 * Every study report `memplan report` knows: importing this module registers them (one
 * import line per study; each report module calls registerStudyReport).
 */
import './gemm-tiling.ts';
import './parallel-groups.ts';
import './flexnn-budget.ts';
