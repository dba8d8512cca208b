//! Conceptual's Jacobi 3-D (the Union benchmark `jacobi3d` that CODES's
//! `conc-online` replay runs, argv as in `conceptual.json`): the ranks
//! are blocks of a periodic 3-D array; after a barrier, per iteration the
//! compute time, an irecv from and an isend to each of the 6 face
//! neighbours of `message_size` doubles, a wait for all and (unless
//! `+nobarrier`) an all-reduce of one double; a barrier at the end.

use super::super::{Builder, Kind, Workload};

/// Jacobi 3-D's parameters (its argv).
#[derive(Clone, Debug, PartialEq)]
pub struct Jacobi3d {
    /// The array's extent per dimension (elements).
    pub array: [u32; 3],
    /// A block's extent per dimension: the array holds `array / block` blocks, one per rank.
    pub block: [u32; 3],
    /// Doubles per face message.
    pub message_doubles: u32,
    /// Iterations.
    pub iterations: u32,
    /// Compute time per iteration, ns (`UNION_Compute` takes ns).
    pub compute_ns: f64,
    /// An all-reduce every iteration (argv's last word other than `+nobarrier`).
    pub barrier: bool,
}

impl Jacobi3d {
    /// From the benchmark's argv (program name first): 6 words (`N B MSG
    /// ITER COMPUTE [+no]barrier`, a cube) or 10 (`X Y Z BX BY BZ MSG ITER
    /// COMPUTE [+no]barrier`).
    pub fn from_argv(argv: &[String]) -> Result<Jacobi3d, String> {
        let usage = "jacobi3d takes N B MSG ITER COMPUTE [+no]barrier or X Y Z BX BY BZ MSG ITER COMPUTE [+no]barrier";
        let num = |i: usize| -> Result<u32, String> {
            argv[i].parse().map_err(|_| format!("{usage}: argument {i} '{}' is not a whole number", argv[i]))
        };
        let (array, block, rest) = match argv.len() {
            7 => ([num(1)?; 3], [num(2)?; 3], 3),
            11 => ([num(1)?, num(2)?, num(3)?], [num(4)?, num(5)?, num(6)?], 7),
            n => return Err(format!("{usage}; got {} arguments", n.saturating_sub(1))),
        };
        let compute: u64 = argv[rest + 2]
            .parse()
            .map_err(|_| format!("{usage}: compute time '{}' is not whole ns", argv[rest + 2]))?;
        Ok(Jacobi3d {
            array,
            block,
            message_doubles: num(rest)?,
            iterations: num(rest + 1)?,
            compute_ns: compute as f64,
            barrier: !argv[rest + 3].eq_ignore_ascii_case("+nobarrier"),
        })
    }

    /// Blocks per dimension.
    pub fn grid(&self) -> [u32; 3] {
        [0, 1, 2].map(|d| self.array[d].checked_div(self.block[d]).unwrap_or(0))
    }

    /// Bytes of a face message (doubles of 8 bytes).
    pub fn message_bytes(&self) -> Option<u32> {
        self.message_doubles.checked_mul(8)
    }

    /// The rank programs of `ranks` ranks; refuses an array the blocks do
    /// not divide, a rank count other than the blocks', and a dimension of
    /// one block (its ranks would send to themselves).
    pub fn workload(&self, ranks: u32) -> Result<Workload, String> {
        for d in 0..3 {
            if self.block[d] == 0 || self.array[d] < self.block[d] || self.array[d] % self.block[d] != 0 {
                return Err(format!(
                    "jacobi3d: array size {} is not a multiple of block size {} (dimension {d})",
                    self.array[d], self.block[d]
                ));
            }
        }
        let g = self.grid();
        let blocks = g.iter().map(|&x| x as u64).product::<u64>();
        if blocks != ranks as u64 {
            return Err(format!(
                "jacobi3d: {}x{}x{} blocks need {blocks} ranks, but the job has {ranks}",
                g[0], g[1], g[2]
            ));
        }
        if let Some(d) = g.iter().position(|&x| x == 1) {
            return Err(format!(
                "jacobi3d: one block along dimension {d}, so ranks would send to themselves (not modelled)"
            ));
        }
        let bytes = self.message_bytes().ok_or("jacobi3d: the message size in bytes exceeds 2^32")?;
        let at = |c: [u32; 3]| c[0] + c[1] * g[0] + c[2] * g[0] * g[1];
        let mut b = Builder::new(ranks);
        for r in 0..ranks {
            let c = [r % g[0], r % (g[0] * g[1]) / g[0], r / (g[0] * g[1])];
            let step = |d: usize, up: bool| {
                let mut n = c;
                n[d] = if up { (c[d] + 1) % g[d] } else { (c[d] + g[d] - 1) % g[d] };
                at(n)
            };
            b.barrier(r, ranks, 0);
            for _ in 0..self.iterations {
                b.compute(r, self.compute_ns);
                // Tags 1..=6: RIGHT, LEFT, TOP, BOTTOM, FRONT, BACK; a plane
                // comes from the +x neighbour with tag RIGHT, and so on.
                for (tag, (d, up)) in (1..).zip([(0, true), (0, false), (1, true), (1, false), (2, true), (2, false)]) {
                    b.push(r, Kind::Recv { src: step(d, up), tag, blocking: false }, 0, "");
                }
                for (tag, (d, up)) in (1..).zip([(0, false), (0, true), (1, false), (1, true), (2, false), (2, true)]) {
                    b.send(r, step(d, up), bytes, tag, false, (0, ""));
                }
                b.push(r, Kind::WaitAll, 0, "");
                if self.barrier {
                    b.allreduce_folded(r, ranks, 8);
                }
            }
            b.barrier(r, ranks, 0);
        }
        Ok(b.finish(format!("jacobi3d on {ranks} ranks ({}x{}x{} blocks)", g[0], g[1], g[2])))
    }
}
