
/// The leg to an intermediate router in the destination's group draws its
/// gateway apart from the minimal route's (CODES draws them independently):
/// UGAL's two routes are not forced onto one channel.
#[test]
fn the_leg_to_the_intermediate_draws_apart_from_the_minimal_route() {
    let d = theta().d;
    let (s, t) = (0, 3 * 96 + 40);
    for v in [3 * 96 + 5, t] {
        let same = (0..=255u8)
            .filter(|&b| {
                let k = key(b, 1, 2);
                d.step_keyed(s, t, NO_VIA, k) == d.step_keyed(s, t, v as u16, k)
            })
            .count();
        // 24 gateways toward group 3, each reached by its own local ports.
        assert!(same < 128, "via {v}: the first port equals the minimal route's for {same} of 256 draws");
    }
}
