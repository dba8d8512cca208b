//! CODES connection files: the wiring of a `dragonfly_custom` (Cray
//! Aries: rows and columns of routers per group) or `dragonfly_dally`
//! network read from its `intra-group-connections` and
//! `inter-group-connections` files, and how a packet crosses it.
//!
//! Format (CODES's own, little-endian 32-bit integers, no header): the
//! intra file holds `(src, dest, type)` records, router numbers within a
//! group, every group wired alike; the inter file `(src, dest)` records of
//! global router numbers. A pair listed k times is k parallel links; both
//! directions are listed. Each record is one port of its source router.
//!
//! Ports of router `i` of a group: its local links first, ordered by the
//! router they lead to (parallel links side by side), then from
//! [`Wiring::local`] its global links ordered by the group, then the
//! router, they lead to. Routers with fewer links leave the top ports
//! of each kind unwired.
//!
//! Routing follows CODES: within a group, a direct link if there is one,
//! else through a router joined to both ends (on Aries: row then column,
//! or column then row); to another group, by a gateway router of this
//! group with links there ([`ExitRule`]); among parallel links, any. Each of
//! these choices is a draw: one random byte per packet from the model's
//! (reversible) generator, mixed with the packet's identity and the place
//! of the choice, so every router of a group agrees on the gateway CODES
//! would have remembered in the packet, and a rollback undoes the draw.

use std::path::Path;

/// How a packet picks the router that leaves its group toward another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitRule {
    /// `dragonfly_custom`: at the group's first router, a gateway uniform
    /// over the group's routers with links to the target group (possibly
    /// itself), kept until it is reached.
    Custom,
    /// `dragonfly_dally`: its own global links to the target group if the
    /// router has any, else a local link, uniform over those that lead to
    /// a router that has (through a router joined to both when none does).
    Dally,
}

/// A wiring read from connection files (see the module's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wiring {
    /// The exit rule.
    pub rule: ExitRule,
    a: u32,
    g: u32,
    /// Local ports per router (the most any router has).
    pub local: u32,
    /// Global ports per router (the most any router has).
    pub global: u32,
    /// Per router and port: the far router and its port (`u32::MAX`: unwired).
    links: Vec<(u32, u32)>,
    /// Per pair `(i, j)` of routers within a group: first local port of `i` to `j` and how many.
    direct: Vec<(u8, u8)>,
    /// Per pair `(i, j)`: the routers joined to both (`mid_at[i·a + j] ..`).
    mids: Vec<u8>,
    mid_at: Vec<u32>,
    /// Per pair of groups `(x, y)`: routers of `x` with links to `y` (global numbers).
    gateways: Vec<Vec<u32>>,
    /// Per router and group: first global port toward that group and how many.
    exits: Vec<(u8, u8)>,
    /// Per router and group: its local ports that lead to a gateway toward that group.
    near_at: Vec<u32>,
    near: Vec<u8>,
    /// Links per (ordered) pair of groups, as read.
    pub between: Vec<u32>,
    /// Rows and columns of the intra file's types 0 and 1: links of each type.
    pub typed: [u32; 2],
    /// Dragonfly+: leaf routers per group (the first of each group in the
    /// files, the only ones with terminals), 0 otherwise. The network then
    /// numbers all leaves first (group by group), then all spines, so that
    /// nodes are numbered without gaps; the files' numbers are mapped.
    pub leaves: u32,
    /// Per router and global port: the link's place among the router's
    /// links in the inter file (CODES numbers a router's global channels
    /// in file order; ours are sorted by far router). Only `--lp-io-dir` reads it.
    file_order: Vec<u8>,
    /// Per router of a group (every group is wired alike): the port of its
    /// k-th record in the intra file (CODES's local port k in
    /// `dragonfly_dally`, which numbers them in file order). Only
    /// `--lp-io-dir` reads it.
    local_order: Vec<u8>,
}

/// Reads the 32-bit records of `path`, `width` integers each.
fn records(path: &Path, width: usize, what: &str) -> Result<Vec<Vec<i32>>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{what} {}: {e}", path.display()))?;
    if bytes.is_empty() || bytes.len() % (4 * width) != 0 {
        return Err(format!(
            "{what} {}: {} bytes, not a whole number of {}-byte records (CODES's binary format: {width} \
             little-endian 32-bit integers per link)",
            path.display(),
            bytes.len(),
            4 * width
        ));
    }
    Ok(bytes
        .chunks_exact(4 * width)
        .map(|r| r.chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
        .collect())
}

/// splitmix64's finaliser: a well-spread 64-bit hash.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Choice number `below` (exclusive) for packet key `key` at place `at`.
#[inline]
pub(crate) fn pick(key: u64, at: u64, below: u32) -> u32 {
    (mix(key ^ mix(at.wrapping_add(0x9e37_79b9_7f4a_7c15))) % below as u64) as u32
}

/// Mixed into a packet's key on its leg to a `dragonfly_custom`
/// intermediate router ([`Wiring::step`]).
const VIA_KEY: u64 = 0x7a3c_91e5_0d68_b24f;

/// A packet's routing key: its random byte (drawn at injection) and identity.
#[inline]
pub(crate) fn key(draw: u8, src: u32, msg: u32) -> u64 {
    mix((draw as u64) << 56 ^ (src as u64) << 24 ^ msg as u64)
}

impl Wiring {
    /// Reads the two files of a network of `g` groups of `a` routers.
    /// `typed`: the intra file has a third field, the link type (0 row, 1 column).
    pub fn read(intra: &Path, inter: &Path, a: u32, g: u32, rule: ExitRule) -> Result<Wiring, String> {
        let what = "intra-group connections";
        let local = records(intra, 3, what)?;
        let global = records(inter, 2, "inter-group connections")?;
        Self::build(&local, &global, a, g, rule).map_err(|(file, e)| {
            format!(
                "{} {}: {e}",
                if file == 0 { what } else { "inter-group connections" },
                [intra, inter][file].display()
            )
        })
    }

    /// The wiring of the given records (`local`: `(src, dest, type)` within a
    /// group; `global`: `(src, dest)` global router numbers). Errors: which
    /// file (0 intra, 1 inter) and what is wrong.
    pub fn build(
        local: &[Vec<i32>],
        global: &[Vec<i32>],
        a: u32,
        g: u32,
        rule: ExitRule,
    ) -> Result<Wiring, (usize, String)> {
        let (au, gu) = (a as usize, g as usize);
        let n = au * gu;
        let mut typed = [0u32; 2];
        // Local links of each router: destinations, in order.
        let mut to: Vec<Vec<u32>> = vec![Vec::new(); au];
        for (k, r) in local.iter().enumerate() {
            let (s, d, t) = (r[0], r[1], r[2]);
            if s < 0 || d < 0 || s as u32 >= a || d as u32 >= a || s == d {
                return Err((
                    0,
                    format!(
                        "record {k}: link {s} -> {d} is not between two routers of a group of {a} (0 to {})",
                        a - 1
                    ),
                ));
            }
            if !(0..=1).contains(&t) {
                return Err((0, format!("record {k}: link type {t}, but CODES's types are 0 (row) and 1 (column)")));
            }
            typed[t as usize] += 1;
            to[s as usize].push(d as u32);
        }
        let mut far: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (k, r) in global.iter().enumerate() {
            let (s, d) = (r[0], r[1]);
            if s < 0 || d < 0 || s as usize >= n || d as usize >= n || s as u32 / a == d as u32 / a {
                return Err((
                    1,
                    format!(
                        "record {k}: link {s} -> {d} is not between routers of two different groups of the {n} \
                     routers ({g} groups of {a})"
                    ),
                ));
            }
            far[s as usize].push(d as u32);
        }
        let as_read = far.clone();
        let to_read = to.clone();
        for v in to.iter_mut().chain(far.iter_mut()) {
            v.sort_unstable();
        }
        let count = |v: &[u32], x: u32| v.iter().filter(|&&y| y == x).count();
        for (i, v) in to.iter().enumerate() {
            for &j in v {
                let (f, b) = (count(v, j), count(&to[j as usize], i as u32));
                if f != b {
                    return Err((0, format!("routers {i} -> {j} are joined {f} time(s) but {j} -> {i} {b}: every link must be listed both ways")));
                }
            }
        }
        for (i, v) in far.iter().enumerate() {
            for &j in v {
                let (f, b) = (count(v, j), count(&far[j as usize], i as u32));
                if f != b {
                    return Err((1, format!("routers {i} -> {j} are joined {f} time(s) but {j} -> {i} {b}: every link must be listed both ways")));
                }
            }
        }
        let lmax = to.iter().map(Vec::len).max().unwrap_or(0) as u32;
        let gmax = far.iter().map(Vec::len).max().unwrap_or(0) as u32;
        if lmax + gmax > 255 {
            return Err((1, format!("a router has {lmax} local and {gmax} global links: at most 255 ports in all")));
        }
        let ports = (lmax + gmax) as usize;
        let mut links = vec![(u32::MAX, u32::MAX); n * ports];
        let mut direct = vec![(0u8, 0u8); au * au];
        for (i, v) in to.iter().enumerate() {
            for (p, &j) in v.iter().enumerate() {
                let e = &mut direct[i * au + j as usize];
                if e.1 == 0 {
                    e.0 = p as u8;
                }
                e.1 += 1;
            }
        }
        for grp in 0..gu {
            for (i, v) in to.iter().enumerate() {
                for (p, &j) in v.iter().enumerate() {
                    // The m-th parallel link i -> j meets the m-th j -> i.
                    let m = p - direct[i * au + j as usize].0 as usize;
                    let back = direct[j as usize * au + i].0 as usize + m;
                    links[(grp * au + i) * ports + p] = ((grp * au) as u32 + j, back as u32);
                }
            }
        }
        // The m-th sorted link to s is the m-th link to s as read.
        let mut file_order = vec![0u8; n * gmax as usize];
        for (r, v) in far.iter().enumerate() {
            for (p, &s) in v.iter().enumerate() {
                let m = p - v.iter().position(|&x| x == s).expect("present");
                let k = as_read[r].iter().enumerate().filter(|e| *e.1 == s).nth(m).expect("same links").0;
                file_order[r * gmax as usize + p] = k as u8;
            }
        }
        let mut local_order = vec![u8::MAX; au * lmax as usize];
        for (i, v) in to_read.iter().enumerate() {
            for (k, &j) in v.iter().enumerate() {
                let m = v[..k].iter().filter(|&&x| x == j).count();
                local_order[i * lmax as usize + k] = direct[i * au + j as usize].0 + m as u8;
            }
        }
        let mut exits = vec![(0u8, 0u8); n * gu];
        let mut between = vec![0u32; gu * gu];
        for (r, v) in far.iter().enumerate() {
            // Ordered by group, then router: the links to a group side by side.
            for (p, &s) in v.iter().enumerate() {
                let e = &mut exits[r * gu + (s / a) as usize];
                if e.1 == 0 {
                    e.0 = (lmax as usize + p) as u8;
                }
                e.1 += 1;
                between[(r / au) * gu + (s / a) as usize] += 1;
                let first = far[s as usize].iter().position(|&x| x == r as u32).expect("symmetric");
                let m = v.iter().position(|&x| x == s).map_or(0, |f| p - f);
                links[r * ports + lmax as usize + p] = (s, lmax + (first + m) as u32);
            }
        }
        for x in 0..gu {
            for y in 0..gu {
                if x != y && between[x * gu + y] == 0 {
                    return Err((1, format!("groups {x} and {y} have no global link between them")));
                }
            }
        }
        let mut gateways = vec![Vec::new(); gu * gu];
        for r in 0..n {
            for y in 0..gu {
                if exits[r * gu + y].1 > 0 {
                    gateways[(r / au) * gu + y].push(r as u32);
                }
            }
        }
        // Routers joined to both i and j, for pairs not joined directly.
        let (mut mids, mut mid_at) = (Vec::new(), Vec::with_capacity(au * au + 1));
        for i in 0..au {
            for j in 0..au {
                mid_at.push(mids.len() as u32);
                if i == j || direct[i * au + j].1 > 0 {
                    continue;
                }
                let before = mids.len();
                for m in 0..au {
                    if direct[i * au + m].1 > 0 && direct[m * au + j].1 > 0 {
                        mids.push(m as u8);
                    }
                }
                if mids.len() == before {
                    return Err((
                        0,
                        format!(
                            "routers {i} and {j} of a group are more than two local hops apart: CODES routes a \
                         group's packets by a direct link or through one router joined to both"
                        ),
                    ));
                }
            }
        }
        mid_at.push(mids.len() as u32);
        // Per router and target group: local ports that lead to a gateway.
        let (mut near, mut near_at) = (Vec::new(), Vec::with_capacity(n * gu + 1));
        for r in 0..n {
            let (grp, i) = (r / au, r % au);
            for y in 0..gu {
                near_at.push(near.len() as u32);
                for (p, &j) in to[i].iter().enumerate() {
                    if exits[(grp * au + j as usize) * gu + y].1 > 0 {
                        near.push(p as u8);
                    }
                }
            }
        }
        near_at.push(near.len() as u32);
        Ok(Wiring {
            rule,
            a,
            g,
            local: lmax,
            global: gmax,
            links,
            direct,
            mids,
            mid_at,
            gateways,
            exits,
            near_at,
            near,
            between,
            typed,
            leaves: 0,
            file_order,
            local_order,
        })
    }

    /// A Dragonfly+ read from CODES's `dragonfly_plus` files (intra
    /// records `(src, dest)` without a type): `leaves` leaf routers then
    /// spines in each group of `a`.
    pub fn read_plus(intra: &Path, inter: &Path, a: u32, g: u32, leaves: u32) -> Result<Wiring, String> {
        let what = "intra-group connections";
        let local: Vec<Vec<i32>> = records(intra, 2, what)?.into_iter().map(|r| vec![r[0], r[1], 0]).collect();
        let global = records(inter, 2, "inter-group connections")?;
        Self::build_plus(&local, &global, a, g, leaves).map_err(|(file, e)| {
            format!(
                "{} {}: {e}",
                if file == 0 { what } else { "inter-group connections" },
                [intra, inter][file].display()
            )
        })
    }

    /// [`Wiring::build`] for a Dragonfly+ of `leaves` leaves per group:
    /// leaves joined to spines only, global links on spines only.
    pub fn build_plus(
        local: &[Vec<i32>],
        global: &[Vec<i32>],
        a: u32,
        g: u32,
        leaves: u32,
    ) -> Result<Wiring, (usize, String)> {
        if leaves == 0 || leaves >= a {
            return Err((0, format!("a Dragonfly+ group needs leaves and spines: {leaves} leaves of {a} routers")));
        }
        let leaf = |r: i32| (r as u32 % a) < leaves;
        if let Some(r) = local.iter().find(|r| leaf(r[0]) == leaf(r[1])) {
            return Err((
                0,
                format!(
                    "link {} -> {} joins two leaves or two spines: a Dragonfly+ joins leaves to spines",
                    r[0], r[1]
                ),
            ));
        }
        if let Some(r) = global.iter().find(|r| leaf(r[0]) || leaf(r[1])) {
            return Err((
                1,
                format!(
                    "global link {} -> {} ends at a leaf (routers 0 to {} of a group): global links join spines",
                    r[0],
                    r[1],
                    leaves - 1
                ),
            ));
        }
        let mut w = Self::build(local, global, a, g, ExitRule::Dally)?;
        w.leaves = leaves;
        Ok(w)
    }

    /// The files' number of network router `r` (leaves first, then spines).
    #[inline]
    fn int(&self, r: u32) -> u32 {
        let (l, gl) = (self.leaves, self.leaves * self.g);
        match () {
            _ if l == 0 => r,
            _ if r < gl => (r / l) * self.a + r % l,
            _ => {
                let (s, spines) = (r - gl, self.a - l);
                (s / spines) * self.a + l + s % spines
            }
        }
    }

    /// The network's number of the files' router `r` ([`Wiring::int`]'s inverse).
    #[inline]
    fn ext(&self, r: u32) -> u32 {
        let l = self.leaves;
        let (grp, i) = (r / self.a, r % self.a);
        match () {
            _ if l == 0 => r,
            _ if i < l => grp * l + i,
            _ => self.g * l + grp * (self.a - l) + i - l,
        }
    }

    /// Group of (network) router `r`.
    #[inline]
    pub fn group(&self, r: u32) -> u32 {
        self.int(r) / self.a
    }

    /// Network ports per router.
    #[inline]
    pub fn ports(&self) -> usize {
        (self.local + self.global) as usize
    }

    /// The router and port at the other end of `port` of router `r`, if wired.
    #[inline]
    pub fn link(&self, r: u32, port: usize) -> Option<(u32, usize)> {
        let (s, b) = self.links[self.int(r) as usize * self.ports() + port];
        (s != u32::MAX).then(|| (self.ext(s), b as usize))
    }

    /// Global port `p` (counted from the first global port) of router `r`:
    /// its place among `r`'s links in the inter file, CODES's channel number.
    pub fn global_file_order(&self, r: u32, p: usize) -> usize {
        self.file_order[self.int(r) as usize * self.global as usize + p] as usize
    }

    /// Router `r`'s port of its `k`-th record in the intra file, if it has one.
    pub fn local_file_port(&self, r: u32, k: usize) -> Option<usize> {
        let i = (self.int(r) % self.a) as usize;
        let p = *self.local_order.get(i * self.local as usize + k).filter(|_| k < self.local as usize)?;
        (p != u8::MAX).then_some(p as usize)
    }

    /// Links of router `r` (local, global).
    pub fn degree(&self, r: u32) -> (u32, u32) {
        let l = (0..self.local as usize).filter(|&p| self.link(r, p).is_some()).count();
        let h = (self.local as usize..self.ports()).filter(|&p| self.link(r, p).is_some()).count();
        (l as u32, h as u32)
    }

    /// Longest local route within a group: 1 (all-to-all) or 2.
    pub fn diameter(&self) -> u32 {
        1 + (!self.mids.is_empty()) as u32
    }

    /// Routers of group `x` with global links to group `y` (the files' numbers).
    pub fn gateways(&self, x: u32, y: u32) -> &[u32] {
        &self.gateways[(x * self.g + y) as usize]
    }

    /// Groups.
    #[inline]
    pub fn groups(&self) -> u32 {
        self.g
    }

    /// Dragonfly+: whether (network) router `r` is a leaf.
    #[inline]
    pub fn is_leaf(&self, r: u32) -> bool {
        r < self.leaves * self.g
    }

    /// Router `r`'s local ports that lead to a router with global links to
    /// group `y` (not `r`'s).
    #[inline]
    pub fn near_ports(&self, r: u32, y: u32) -> &[u8] {
        let at = (self.int(r) * self.g + y) as usize;
        &self.near[self.near_at[at] as usize..self.near_at[at + 1] as usize]
    }

    /// Router `r`'s global ports to group `y`: the first and how many (parallel, side by side).
    #[inline]
    pub fn exits_to(&self, r: u32, y: u32) -> (u8, u8) {
        self.exits[(self.int(r) * self.g + y) as usize]
    }

    /// Router `r`'s local ports to router `t` of its group: the first and how many.
    #[inline]
    pub fn direct_to(&self, r: u32, t: u32) -> (u8, u8) {
        self.direct[((self.int(r) % self.a) * self.a + self.int(t) % self.a) as usize]
    }

    /// Local port from router index `i` toward router index `j` of the same group (`i ≠ j`).
    #[inline]
    fn toward(&self, i: u32, j: u32, key: u64, r: u32) -> u8 {
        let a = self.a as usize;
        let (first, n) = self.direct[i as usize * a + j as usize];
        if n > 0 {
            return first + pick(key, r as u64, n as u32) as u8;
        }
        let (lo, hi) = (self.mid_at[i as usize * a + j as usize], self.mid_at[i as usize * a + j as usize + 1]);
        let m = self.mids[(lo + pick(key, (r as u64) << 32 | j as u64, hi - lo)) as usize];
        let (first, n) = self.direct[i as usize * a + m as usize];
        first + pick(key, (r as u64) << 32 | m as u64 | 1 << 63, n as u32) as u8
    }

    /// One of router `r`'s global ports toward group `to` (it has some).
    #[inline]
    fn exit(&self, r: u32, to: u32, key: u64) -> u8 {
        let (first, n) = self.exits[(r * self.g + to) as usize];
        first + pick(key, (r as u64) << 32 | to as u64, n as u32) as u8
    }

    /// The next port from router `r` toward router `dst`, through `via`
    /// first unless it is `u16::MAX`: a group, or under [`ExitRule::Custom`]
    /// a router (CODES's `dragonfly_custom` routes minimally to its
    /// intermediate router, then on from it); `None` at `dst`.
    #[inline]
    pub fn step(&self, r: u32, dst: u32, via: u16, key: u64) -> Option<u8> {
        let (r, dst) = (self.int(r), self.int(dst));
        if self.rule == ExitRule::Custom && via != u16::MAX {
            // Custom numbers routers as the files do. The leg to the
            // intermediate draws with its own key: CODES draws its gateway
            // (and links) apart from those of the route on, and of the
            // minimal route adaptive routing weighs it against.
            return match via as u32 {
                v if v == r => self.step(r, dst, u16::MAX, key),
                v => self.step(r, v, u16::MAX, key ^ VIA_KEY),
            };
        }
        let (grp, i) = (r / self.a, r % self.a);
        let to = if via == u16::MAX { dst / self.a } else { via as u32 };
        if to == grp {
            return (r != dst).then(|| self.toward(i, dst % self.a, key, r));
        }
        let own = self.exits[(r * self.g + to) as usize].1 > 0;
        if self.rule == ExitRule::Dally {
            if own {
                return Some(self.exit(r, to, key));
            }
            let at = (r * self.g + to) as usize;
            let (lo, hi) = (self.near_at[at], self.near_at[at + 1]);
            if hi > lo {
                return Some(self.near[(lo + pick(key, r as u64, hi - lo)) as usize]);
            }
        }
        let gws = self.gateways(grp, to);
        let gw = gws[pick(key, (grp as u64) << 32 | to as u64, gws.len() as u32) as usize];
        Some(if gw == r { self.exit(r, to, key) } else { self.toward(i, gw % self.a, key, r) })
    }
}
