//! The C++ standard library's selection algorithms as GCC's libstdc++ implements them, which
//! PyTorch's CPU `topk` calls (`TopKImpl.h`): `std::nth_element` (introselect),
//! `std::partial_sort` (heap select, then heap sort) and `std::sort` (introsort, then
//! insertion sort). None of them is stable, so among equal keys *which* elements come first is
//! the algorithm's own choice (`torch.ones(4).topk(2)` gives indices `[2, 3]`); reproducing
//! the algorithms step for step is the only way to give PyTorch's answer.
//!
//! `less(a, b)` is the strict weak ordering the caller passes to the C++ algorithm.

/// Below this length introsort leaves a range to the final insertion sort.
const THRESHOLD: usize = 16;

/// `floor(log2(n))` for `n > 0` (libstdc++'s `__lg`).
fn lg(n: usize) -> usize {
    (usize::BITS - 1 - n.leading_zeros()) as usize
}

/// `std::sort(v.begin(), v.end(), less)`.
pub fn sort<T: Clone>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    if v.is_empty() {
        return;
    }
    introsort_loop(v, 0, v.len(), lg(v.len()) * 2, less);
    final_insertion_sort(v, less);
}

/// `std::partial_sort(v.begin(), v.begin() + middle, v.end(), less)`.
pub fn partial_sort<T: Clone>(v: &mut [T], middle: usize, less: &impl Fn(&T, &T) -> bool) {
    heap_select(v, 0, middle, v.len(), less);
    sort_heap(v, 0, middle, less);
}

/// `std::nth_element(v.begin(), v.begin() + nth, v.end(), less)`.
pub fn nth_element<T: Clone>(v: &mut [T], nth: usize, less: &impl Fn(&T, &T) -> bool) {
    if v.is_empty() || nth == v.len() {
        return;
    }
    let (mut first, mut last) = (0, v.len());
    let mut depth = lg(v.len()) * 2;
    while last - first > 3 {
        if depth == 0 {
            heap_select(v, first, nth + 1, last, less);
            // The nth element to its final place.
            v.swap(first, nth);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, less);
        if cut <= nth {
            first = cut;
        } else {
            last = cut;
        }
    }
    insertion_sort(v, first, last, less);
}

fn introsort_loop<T: Clone>(
    v: &mut [T],
    first: usize,
    mut last: usize,
    mut depth: usize,
    less: &impl Fn(&T, &T) -> bool,
) {
    while last - first > THRESHOLD {
        if depth == 0 {
            heap_select(v, first, last, last, less);
            sort_heap(v, first, last, less);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, less);
        introsort_loop(v, cut, last, depth, less);
        last = cut;
    }
}

/// Moves the median of `first + 1`, the middle and `last - 1` to `first` and partitions the
/// rest around it; returns the cut.
fn partition_pivot<T: Clone>(v: &mut [T], first: usize, last: usize, less: &impl Fn(&T, &T) -> bool) -> usize {
    let mid = first + (last - first) / 2;
    move_median_to_first(v, first, first + 1, mid, last - 1, less);
    unguarded_partition(v, first + 1, last, first, less)
}

fn move_median_to_first<T>(v: &mut [T], result: usize, a: usize, b: usize, c: usize, less: &impl Fn(&T, &T) -> bool) {
    let pick = if less(&v[a], &v[b]) {
        if less(&v[b], &v[c]) {
            b
        } else if less(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c]) {
        a
    } else if less(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(result, pick);
}

fn unguarded_partition<T>(
    v: &mut [T],
    mut first: usize,
    mut last: usize,
    pivot: usize,
    less: &impl Fn(&T, &T) -> bool,
) -> usize {
    loop {
        while less(&v[first], &v[pivot]) {
            first += 1;
        }
        last -= 1;
        while less(&v[pivot], &v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

fn final_insertion_sort<T: Clone>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    if v.len() > THRESHOLD {
        insertion_sort(v, 0, THRESHOLD, less);
        for i in THRESHOLD..v.len() {
            unguarded_linear_insert(v, i, less);
        }
    } else {
        insertion_sort(v, 0, v.len(), less);
    }
}

fn insertion_sort<T: Clone>(v: &mut [T], first: usize, last: usize, less: &impl Fn(&T, &T) -> bool) {
    if first == last {
        return;
    }
    for i in first + 1..last {
        if less(&v[i], &v[first]) {
            // `move_backward(first, i, i + 1)`, then the value at `first`.
            v[first..=i].rotate_right(1);
        } else {
            unguarded_linear_insert(v, i, less);
        }
    }
}

fn unguarded_linear_insert<T: Clone>(v: &mut [T], mut last: usize, less: &impl Fn(&T, &T) -> bool) {
    let val = v[last].clone();
    while less(&val, &v[last - 1]) {
        v[last] = v[last - 1].clone();
        last -= 1;
    }
    v[last] = val;
}

/// Makes `[first, middle)` a heap of the smallest `middle - first` elements of `[first, last)`
/// under `less` (its top the largest of them).
fn heap_select<T: Clone>(v: &mut [T], first: usize, middle: usize, last: usize, less: &impl Fn(&T, &T) -> bool) {
    make_heap(v, first, middle, less);
    for i in middle..last {
        if less(&v[i], &v[first]) {
            pop_heap(v, first, middle, i, less);
        }
    }
}

fn make_heap<T: Clone>(v: &mut [T], first: usize, last: usize, less: &impl Fn(&T, &T) -> bool) {
    let len = last - first;
    if len < 2 {
        return;
    }
    let mut parent = (len - 2) / 2;
    loop {
        let value = v[first + parent].clone();
        adjust_heap(v, first, parent, len, value, less);
        if parent == 0 {
            return;
        }
        parent -= 1;
    }
}

fn sort_heap<T: Clone>(v: &mut [T], first: usize, mut last: usize, less: &impl Fn(&T, &T) -> bool) {
    while last - first > 1 {
        last -= 1;
        pop_heap(v, first, last, last, less);
    }
}

/// Moves the heap's top to `result` and the value at `result` into the heap `[first, last)`.
fn pop_heap<T: Clone>(v: &mut [T], first: usize, last: usize, result: usize, less: &impl Fn(&T, &T) -> bool) {
    let value = v[result].clone();
    v[result] = v[first].clone();
    adjust_heap(v, first, 0, last - first, value, less);
}

fn adjust_heap<T: Clone>(
    v: &mut [T],
    first: usize,
    mut hole: usize,
    len: usize,
    value: T,
    less: &impl Fn(&T, &T) -> bool,
) {
    let top = hole;
    let mut child = hole;
    while child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(&v[first + child], &v[first + child - 1]) {
            child -= 1;
        }
        v[first + hole] = v[first + child].clone();
        hole = child;
    }
    if len & 1 == 0 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        v[first + hole] = v[first + child - 1].clone();
        hole = child - 1;
    }
    // `__push_heap`: the value climbs back towards `top`.
    let mut parent = hole.wrapping_sub(1) / 2;
    while hole > top && less(&v[first + parent], &value) {
        v[first + hole] = v[first + parent].clone();
        hole = parent;
        parent = hole.wrapping_sub(1) / 2;
    }
    v[first + hole] = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(a: &(f64, usize), b: &(f64, usize)) -> bool {
        (a.0.is_nan() && !b.0.is_nan()) || a.0 > b.0
    }

    /// `topk` as `TopKImpl.h` runs it, for the indices only.
    fn topk(values: &[f64], k: usize) -> Vec<usize> {
        let mut q: Vec<(f64, usize)> = values.iter().copied().zip(0..).collect();
        if k * 64 <= q.len() {
            partial_sort(&mut q, k, &desc);
        } else {
            nth_element(&mut q, k - 1, &desc);
            sort(&mut q[..k - 1], &desc);
        }
        q[..k].iter().map(|p| p.1).collect()
    }

    #[test]
    fn ties_fall_where_libstdcxx_puts_them() {
        // Recorded from PyTorch 2.15 on CPU.
        assert_eq!(topk(&[1.0; 4], 2), [2, 3]);
        assert_eq!(topk(&[1.0; 20], 5), [12, 14, 13, 15, 11]);
        assert_eq!(topk(&[1.0; 40], 3), [28, 26, 27]);
        assert_eq!(topk(&[1.0, 2.0, 2.0, 2.0, 1.0], 2), [1, 3]);
    }

    #[test]
    fn sorts_agree_with_a_stable_sort_on_distinct_keys() {
        // Each multiplier is prime to 301, so each list holds 0..301 once.
        let shuffled = |m: usize| -> Vec<(f64, usize)> { (0..301).map(|i| (((i * m) % 301) as f64, i)).collect() };
        let want: Vec<f64> = (0..301).rev().map(|v| v as f64).collect();
        let mut x = shuffled(7919);
        sort(&mut x, &desc);
        assert_eq!(x.iter().map(|p| p.0).collect::<Vec<_>>(), want);
        let mut y = shuffled(13);
        partial_sort(&mut y, 10, &desc);
        assert_eq!(y[..10].iter().map(|p| p.0).collect::<Vec<_>>(), want[..10]);
        let mut z = shuffled(31);
        nth_element(&mut z, 150, &desc);
        assert_eq!(z[150].0, want[150]);
        assert!(z[..150].iter().all(|p| p.0 >= z[150].0) && z[151..].iter().all(|p| p.0 <= z[150].0));
    }
}
