/**
 * Every study `memplan run` knows: importing this module registers them (one import line
 * per study; each study module calls registerStudy).
 */
import './gemm-tiling.ts';
import './parallel-groups.ts';
import './flexnn-budget.ts';
