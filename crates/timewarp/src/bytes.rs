//! Byte counts for people, in error messages and memory estimates.

/// `bytes` for people: `1.5 GB`, `312 MB`, `4.0 KB` (decimal units).
pub fn human(bytes: u64) -> String {
    let units = ["bytes", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < units.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes_read_naturally() {
        assert_eq!(human(512), "512 bytes");
        assert_eq!(human(1_500_000_000), "1.5 GB");
        assert_eq!(human(u64::MAX), "18.4 EB");
    }
}
