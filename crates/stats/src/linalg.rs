//! The little dense linear algebra the rating fit needs: Cholesky
//! factorisation of a symmetric positive definite matrix, solves, inverse.

/// Lower-triangular `L` with `A = L Lᵀ`.
pub(super) struct Cholesky {
    lower: Vec<Vec<f64>>,
}

impl Cholesky {
    /// Factorises `a`; `None` unless `a` is (numerically) positive definite.
    pub(super) fn new(a: &[Vec<f64>]) -> Option<Self> {
        let n = a.len();
        let mut lower = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..=i {
                let dot: f64 = (0..j).map(|k| lower[i][k] * lower[j][k]).sum();
                let value = a[i][j] - dot;
                if i == j {
                    if !(value > 0.0 && value.is_finite()) {
                        return None;
                    }
                    lower[i][i] = value.sqrt();
                } else {
                    lower[i][j] = value / lower[j][j];
                }
            }
        }
        Some(Self { lower })
    }

    /// Solves `A x = b`.
    pub(super) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = self.lower.len();
        let l = &self.lower;
        // Forward: L y = b.
        let mut y = vec![0.0; n];
        for i in 0..n {
            let dot: f64 = (0..i).map(|k| l[i][k] * y[k]).sum();
            y[i] = (b[i] - dot) / l[i][i];
        }
        // Backward: Lᵀ x = y.
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            let dot: f64 = (i + 1..n).map(|k| l[k][i] * x[k]).sum();
            x[i] = (y[i] - dot) / l[i][i];
        }
        x
    }

    /// `A⁻¹`, column by column.
    pub(super) fn inverse(&self) -> Vec<Vec<f64>> {
        let n = self.lower.len();
        let mut inverse = vec![vec![0.0; n]; n];
        for j in 0..n {
            let mut unit = vec![0.0; n];
            unit[j] = 1.0;
            for (i, value) in self.solve(&unit).into_iter().enumerate() {
                inverse[i][j] = value;
            }
        }
        inverse
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_inverts() {
        let a = vec![
            vec![4.0, 2.0, 0.4],
            vec![2.0, 5.0, 1.0],
            vec![0.4, 1.0, 3.0],
        ];
        let chol = Cholesky::new(&a).unwrap();
        let x = chol.solve(&[1.0, 2.0, 3.0]);
        for (row, want) in a.iter().zip([1.0, 2.0, 3.0]) {
            let got: f64 = row.iter().zip(&x).map(|(r, v)| r * v).sum();
            assert!((got - want).abs() < 1e-12);
        }
        let inv = chol.inverse();
        for (i, row) in a.iter().enumerate() {
            for j in 0..3 {
                let got: f64 = row.iter().zip(&inv).map(|(r, inv_k)| r * inv_k[j]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((got - want).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn rejects_indefinite() {
        assert!(Cholesky::new(&[vec![1.0, 2.0], vec![2.0, 1.0]]).is_none());
        assert!(Cholesky::new(&[vec![0.0]]).is_none());
    }
}
