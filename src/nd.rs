//! Element geometry shared by the read and write paths: how a box of
//! elements maps between two C-order arrays.

/// Visits a box of `extent` inside two C-order arrays as runs along the last
/// axis: `f(src_index, dst_index, run)`. A rank-0 box is one run of one.
pub(crate) fn for_each_run(
    extent: &[usize],
    src: (&[usize], &[usize]),
    dst: (&[usize], &[usize]),
    mut f: impl FnMut(usize, usize, usize),
) {
    let rank = extent.len();
    if extent.contains(&0) {
        return;
    }
    if rank == 0 {
        f(0, 0, 1);
        return;
    }
    let strides = |shape: &[usize]| {
        let mut s = vec![1usize; rank];
        for axis in (0..rank - 1).rev() {
            s[axis] = s[axis + 1] * shape[axis + 1];
        }
        s
    };
    let (src_shape, src_origin) = src;
    let (dst_shape, dst_origin) = dst;
    let (ss, ds) = (strides(src_shape), strides(dst_shape));
    let run = extent[rank - 1];
    let mut index = vec![0usize; rank];
    loop {
        let at = |origin: &[usize], strides: &[usize]| -> usize {
            (0..rank).map(|a| (origin[a] + index[a]) * strides[a]).sum()
        };
        f(at(src_origin, &ss), at(dst_origin, &ds), run);
        // Advance the outer axes like an odometer.
        let mut axis = rank - 1;
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            index[axis] += 1;
            if index[axis] < extent[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
}

/// Every index of a box of `counts`, in C order, as offsets from its
/// corner; made as they are taken, since a grid can have billions of cells.
/// An empty axis gives none; rank 0 gives one.
#[cfg_attr(not(feature = "writer"), allow(dead_code))]
pub(crate) fn c_order(counts: &[u64]) -> impl Iterator<Item = Vec<u64>> + use<> {
    let counts = counts.to_vec();
    let total = counts
        .iter()
        .try_fold(1u64, |a, &n| a.checked_mul(n))
        .unwrap_or(u64::MAX);
    (0..total).map(move |mut i| {
        let mut at = vec![0u64; counts.len()];
        for axis in (0..counts.len()).rev() {
            at[axis] = i % counts[axis];
            i /= counts[axis];
        }
        at
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cover_a_box() {
        let mut seen = Vec::new();
        // A 2x2 box at (1,1) of a 3x4 source into a 2x2 destination.
        for_each_run(
            &[2, 2],
            (&[3, 4], &[1, 1]),
            (&[2, 2], &[0, 0]),
            |s, d, r| seen.push((s, d, r)),
        );
        assert_eq!(seen, vec![(5, 0, 2), (9, 2, 2)]);
        let mut scalar = Vec::new();
        for_each_run(&[], (&[], &[]), (&[], &[]), |s, d, r| {
            scalar.push((s, d, r))
        });
        assert_eq!(scalar, vec![(0, 0, 1)]);
    }

    #[test]
    fn c_order_walks_the_last_axis_fastest() {
        let all: Vec<Vec<u64>> = c_order(&[2, 3]).collect();
        assert_eq!(all[..4], [vec![0, 0], vec![0, 1], vec![0, 2], vec![1, 0]]);
        assert_eq!(all.len(), 6);
        assert_eq!(c_order(&[4, 0]).count(), 0);
        assert_eq!(c_order(&[]).collect::<Vec<_>>(), [Vec::<u64>::new()]);
    }
}
