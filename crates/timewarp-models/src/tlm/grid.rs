//! The TLM grid: cell ids, ports, the grid's edge and obstacles.
//!
//! Cell `(x, y, z)` is LP `z + Z·(x + X·y)`: the layers of a column are
//! neighbours in memory, and blocks of LP ids are slabs of rows through all
//! layers, so block placement cuts the grid across y (a few cells per
//! column on the cut), not between layers (every cell on the cut, the
//! mapping `x + X·(y + Y·z)` gives). Port `p` of a cell faces axis
//! `p / 2`, towards lower coordinates when `p` is even and higher ones when it
//! is odd, so the port across from `p` is `p ^ 1`. A cell keeps one flag word
//! saying which ports face the edge and which face an obstacle: the scatter
//! step then needs no division and no lookup beyond its own cell.

use timewarp::{LpId, Random, ReversibleRng};

/// Flag bit of port `p` facing the grid's edge.
pub(crate) const EDGE: u16 = 1;
/// Flag bit of port `p` facing an obstacle cell (shifted by the port).
pub(crate) const WALL: u16 = 1 << 6;
/// The cell itself is an obstacle (never receives a pulse).
pub(crate) const SOLID: u16 = 1 << 12;
/// The cell holds a source.
pub(crate) const SOURCE: u16 = 1 << 13;
/// The cell holds a receiver.
pub(crate) const RECEIVER: u16 = 1 << 14;

/// Obstacles on the grid: buildings standing on the ground plane (`z = 0`)
/// up to a height in cells.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Layout {
    /// No obstacles: free space.
    #[default]
    Open,
    /// A city of square blocks of `block` cells separated by streets of
    /// `street` cells, each block a building of a height drawn by `seed`
    /// between 1 and the grid's height (in 2-D every block is a wall).
    Urban {
        /// Side of a block, in cells.
        block: u32,
        /// Width of a street, in cells.
        street: u32,
        /// Seed of the building heights.
        seed: u64,
    },
    /// A height per ground cell, row `y` after row, `x` fastest (a terrain file).
    Heights(Vec<u8>),
}

impl Layout {
    /// Reads a terrain file: one line per row `y` (first line `y = 0`), one
    /// character per column `x`: `.` or `0` open ground, `1`–`9` a building
    /// of that many cells, `#` a building as high as the grid. Lines shorter
    /// than the grid are open ground past their end; the file may not be
    /// larger than the grid.
    ///
    /// ```
    /// use timewarp_models::tlm::Layout;
    /// let l = Layout::parse_terrain("..#\n.1.\n", 3, 2).unwrap();
    /// assert_eq!(l, Layout::Heights(vec![0, 0, 255, 0, 1, 0]));
    /// assert!(Layout::parse_terrain("..x", 3, 1).unwrap_err().contains("line 1, column 3"));
    /// ```
    pub fn parse_terrain(text: &str, width: u32, height: u32) -> Result<Layout, String> {
        let mut h = vec![0u8; width as usize * height as usize];
        for (y, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() {
                continue;
            }
            if y >= height as usize {
                return Err(format!("the terrain has more rows ({}) than the grid's y size {height}", y + 1));
            }
            for (x, c) in line.chars().enumerate() {
                if x >= width as usize {
                    return Err(format!("terrain line {} is longer than the grid's x size {width}", y + 1));
                }
                h[y * width as usize + x] = match c {
                    '.' | '0' => 0,
                    '1'..='9' => c as u8 - b'0',
                    '#' => u8::MAX,
                    _ => {
                        return Err(format!(
                            "terrain line {}, column {}: '{c}' is not '.', '0'-'9' or '#'",
                            y + 1,
                            x + 1
                        ))
                    }
                };
            }
        }
        Ok(Layout::Heights(h))
    }
}

/// The grid's geometry and the flag word of every cell.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Cells along x, y, z (z is 1 on a 2-D grid).
    pub size: [u32; 3],
    /// 2 or 3.
    pub dims: usize,
    stride: [u32; 3],
    flags: Vec<u16>,
}

impl Grid {
    /// A grid of `size` cells (two or three extents) with obstacles `layout`.
    pub fn new(size: &[u32], layout: &Layout) -> Result<Grid, String> {
        if !(2..=3).contains(&size.len()) {
            return Err(format!("--size needs 2 or 3 extents (XxY or XxYxZ), got {}", size.len()));
        }
        if let Some(&s) = size.iter().find(|&&s| s == 0) {
            return Err(format!("--size extents must be at least 1, got {s}"));
        }
        if let Layout::Urban { block, street, .. } = layout {
            if *block == 0 || *street == 0 {
                return Err(format!("--block-size and --street-width must be at least 1, got {block} and {street}"));
            }
        }
        let cells = size.iter().map(|&s| s as u64).product::<u64>();
        if cells > u32::MAX as u64 / 2 {
            return Err(format!("--size gives {cells} cells; at most {} fit (one LP per cell)", u32::MAX / 2));
        }
        let dims = size.len();
        let s = [size[0], size[1], if dims == 3 { size[2] } else { 1 }];
        let mut g = Grid { size: s, dims, stride: [s[2], s[2] * s[0], 1], flags: vec![0; cells as usize] };
        let height = |x: u32, y: u32| -> u32 {
            match layout {
                Layout::Open => 0,
                Layout::Heights(h) => h.get((y * s[0] + x) as usize).map_or(0, |&v| v as u32),
                Layout::Urban { block, street, seed } => {
                    let (x, y, block) = (x as u64, y as u64, *block as u64);
                    let period = block + *street as u64;
                    if x % period >= block || y % period >= block {
                        return 0;
                    }
                    // One draw per block, keyed by the block's position.
                    let id = (y / period) * (s[0] as u64 / period + 1) + x / period;
                    1 + ReversibleRng::new(*seed, id).below(s[2] as u64) as u32
                }
            }
        };
        for c in 0..cells as u32 {
            let [x, y, z] = g.coords(c);
            if z < height(x, y) {
                g.flags[c as usize] |= SOLID;
            }
        }
        for c in 0..cells as u32 {
            let mut f = g.flags[c as usize];
            for p in 0..2 * dims {
                match g.neighbour(c, p) {
                    None => f |= EDGE << p,
                    Some(n) if g.flags[n as usize] & SOLID != 0 => f |= WALL << p,
                    Some(_) => {}
                }
            }
            g.flags[c as usize] = f;
        }
        Ok(g)
    }

    /// Number of cells (LPs).
    pub fn cells(&self) -> u32 {
        self.flags.len() as u32
    }

    /// Ports per cell: 4 in 2-D, 6 in 3-D.
    #[inline]
    pub fn ports(&self) -> usize {
        2 * self.dims
    }

    /// Cell id of `(x, y, z)`.
    #[inline]
    pub fn id(&self, [x, y, z]: [u32; 3]) -> LpId {
        z + self.stride[0] * x + self.stride[1] * y
    }

    /// Coordinates of cell `c`.
    #[inline]
    pub fn coords(&self, c: LpId) -> [u32; 3] {
        [(c / self.stride[0]) % self.size[0], c / self.stride[1], c % self.size[2]]
    }

    /// The cell across port `p` of `c`, if inside the grid.
    #[inline]
    pub fn neighbour(&self, c: LpId, p: usize) -> Option<LpId> {
        let axis = p / 2;
        let coord = self.coords(c)[axis];
        if p & 1 == 0 {
            (coord > 0).then(|| c - self.stride[axis])
        } else {
            (coord + 1 < self.size[axis]).then(|| c + self.stride[axis])
        }
    }

    /// The cell across port `p` of `c` when the flags say there is one (no bounds test).
    #[inline]
    pub(crate) fn across(&self, c: LpId, p: usize) -> LpId {
        let s = self.stride[p / 2];
        if p & 1 == 0 {
            c - s
        } else {
            c + s
        }
    }

    /// Flag word of cell `c`.
    #[inline]
    pub(crate) fn flags(&self, c: LpId) -> u16 {
        self.flags[c as usize]
    }

    /// Whether cell `c` is an obstacle.
    pub fn solid(&self, c: LpId) -> bool {
        self.flags[c as usize] & SOLID != 0
    }

    /// Number of cells that are not obstacles.
    pub fn open_cells(&self) -> u64 {
        self.flags.iter().filter(|&&f| f & SOLID == 0).count() as u64
    }

    pub(crate) fn mark(&mut self, c: LpId, bit: u16) {
        self.flags[c as usize] |= bit;
    }

    pub(crate) fn unmark(&mut self, c: LpId, bit: u16) {
        self.flags[c as usize] &= !bit;
    }

    /// Checks a position given by the user and returns its cell.
    pub fn locate(&self, what: &str, pos: &[u32]) -> Result<LpId, String> {
        if pos.len() != self.dims && !(pos.len() == 2 && self.dims == 3) {
            return Err(format!("{what} {pos:?} needs {} coordinates", self.dims));
        }
        let p = [pos[0], pos[1], pos.get(2).copied().unwrap_or(0)];
        if (0..3).any(|a| p[a] >= self.size[a]) {
            return Err(format!(
                "{what} at {pos:?} lies outside the grid ({}x{}x{})",
                self.size[0], self.size[1], self.size[2]
            ));
        }
        let c = self.id(p);
        if self.solid(c) {
            return Err(format!("{what} at {pos:?} lies inside an obstacle; move it to open ground"));
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_coords_and_neighbours_agree() {
        let g = Grid::new(&[4, 3, 2], &Layout::Open).unwrap();
        for c in 0..g.cells() {
            assert_eq!(g.id(g.coords(c)), c);
            for p in 0..6 {
                match g.neighbour(c, p) {
                    Some(n) => {
                        assert_eq!(g.neighbour(n, p ^ 1), Some(c));
                        assert_eq!(g.across(c, p), n);
                        assert_eq!(g.flags(c) & (EDGE << p), 0);
                    }
                    None => assert_ne!(g.flags(c) & (EDGE << p), 0),
                }
            }
        }
        // A corner cell faces the edge on three ports, an inner one on none.
        assert_eq!((g.flags(0) & 0x3f).count_ones(), 3);
    }

    #[test]
    fn urban_blocks_are_walls_in_2d_and_buildings_in_3d() {
        let l = Layout::Urban { block: 2, street: 1, seed: 7 };
        let g = Grid::new(&[6, 6], &l).unwrap();
        // Period 3: cells with x%3<2 and y%3<2 are buildings.
        assert!(g.solid(g.id([0, 0, 0])) && g.solid(g.id([1, 1, 0])));
        assert!(!g.solid(g.id([2, 0, 0])) && !g.solid(g.id([0, 2, 0])));
        assert_ne!(g.flags(g.id([2, 0, 0])) & WALL, 0, "the street cell sees the block to its left");
        let g3 = Grid::new(&[6, 6, 4], &l).unwrap();
        for x in 0..6 {
            for y in 0..6 {
                // Buildings stand on the ground: solid cells form a column from z = 0.
                let col: Vec<bool> = (0..4).map(|z| g3.solid(g3.id([x, y, z]))).collect();
                assert!(col.windows(2).all(|w| w[0] || !w[1]), "{col:?}");
                assert_eq!(col[0], g.solid(g.id([x, y, 0])));
            }
        }
    }

    #[test]
    fn bad_sizes_and_positions_are_explained() {
        assert!(Grid::new(&[0, 4], &Layout::Open).unwrap_err().contains("at least 1"));
        assert!(Grid::new(&[4], &Layout::Open).unwrap_err().contains("2 or 3"));
        assert!(Grid::new(&[65536, 65536], &Layout::Open).unwrap_err().contains("cells"));
        let g = Grid::new(&[4, 4], &Layout::Open).unwrap();
        assert!(g.locate("source", &[4, 0]).unwrap_err().contains("outside"));
        let w = Grid::new(&[4, 4], &Layout::Heights(vec![1; 16])).unwrap();
        assert!(w.locate("source", &[1, 1]).unwrap_err().contains("obstacle"));
    }
}
