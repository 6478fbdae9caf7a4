/** The ALS settings: read by config on the front thread, used by the training thread. */
export interface AlsParams {
  factors: number;
  iterations: number;
  /** L2 regularisation λ. */
  regularization: number;
  /** Confidence c = 1 + alpha·log(1 + strength) (Hu, Koren, Volinsky 2008, with log scaling). */
  alpha: number;
  /** Conjugate-gradient steps per row solve (Takács et al. 2011): 3 is as accurate as an exact solve here. */
  cgSteps: number;
  seed: number;
}

export const DEFAULT_ALS: AlsParams = { factors: 64, iterations: 6, regularization: 50, alpha: 8, cgSteps: 3, seed: 42 };
