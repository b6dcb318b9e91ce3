//! `CellList`: a list of storage indices kept for a whole run (the cells each step wrote, the
//! bridge's write positions), stored as arithmetic runs. A write through a view lands on
//! storage indices that step regularly, so a dense or strided write of any size is a handful of
//! runs: a trace that writes a 2^24-element tensor in every iteration of a loop keeps a few bytes
//! per step instead of 128 MB. An irregular list (an index write) costs at most as much as a
//! plain `Vec<i64>`. A leaf: every layer may use it.

/// `start, start + step, ..., start + (len - 1) * step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    start: i64,
    step: i32,
    len: u32,
}

impl Run {
    fn last(&self) -> i64 {
        self.start + i64::from(self.step) * (i64::from(self.len) - 1)
    }

    /// Takes `e` as its next element when it continues the run.
    fn extend(&mut self, e: i64) -> bool {
        if self.len == u32::MAX {
            return false;
        }
        let Some(step) = e.checked_sub(self.last()).and_then(|d| i32::try_from(d).ok()) else {
            return false;
        };
        if self.len == 1 {
            self.step = step;
        } else if step != self.step {
            return false;
        }
        self.len += 1;
        true
    }
}

/// An ordered list of storage indices (repeats allowed), stored as arithmetic runs. Built
/// greedily, so equal lists are equal values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellList {
    runs: Vec<Run>,
    len: usize,
}

impl CellList {
    pub fn new() -> Self {
        Self::default()
    }

    /// `start, start + 1, ..., start + n - 1`.
    pub fn range(start: i64, n: usize) -> Self {
        let mut out = CellList { runs: Vec::new(), len: n };
        let mut at = 0usize;
        while at < n {
            let len = (n - at).min(u32::MAX as usize);
            out.runs.push(Run { start: start + at as i64, step: i32::from(len > 1), len: len as u32 });
            at += len;
        }
        out
    }

    /// `Some(start..end)` when the list is one ascending run of consecutive indices (a dense
    /// write).
    pub fn as_range(&self) -> Option<std::ops::Range<i64>> {
        match self.runs.as_slice() {
            [r] if r.step == 1 || r.len == 1 => Some(r.start..r.start + i64::from(r.len)),
            _ => None,
        }
    }

    /// Appends `e`.
    pub fn push(&mut self, e: i64) {
        self.len += 1;
        if let Some(r) = self.runs.last_mut() {
            if r.extend(e) {
                return;
            }
        }
        self.runs.push(Run { start: e, step: 0, len: 1 });
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The indices in order.
    pub fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        self.runs.iter().flat_map(|r| (0..i64::from(r.len)).map(move |k| r.start + i64::from(r.step) * k))
    }

    pub fn to_vec(&self) -> Vec<i64> {
        self.iter().collect()
    }

    /// The same indices sorted, each once.
    pub fn into_sorted_unique(self) -> CellList {
        if self.is_strictly_increasing() {
            return self;
        }
        let (Some(lo), Some(hi)) = (self.iter().min(), self.iter().max()) else {
            return CellList::new();
        };
        match hi.checked_sub(lo).and_then(|d| usize::try_from(d).ok()).filter(|&d| d / 4 <= self.len) {
            // A bitmap over the span sorts and dedups in linear time.
            Some(span) => {
                let mut seen = vec![false; span + 1];
                for e in self.iter() {
                    seen[(e - lo) as usize] = true;
                }
                seen.iter().enumerate().filter(|(_, &c)| c).map(|(i, _)| lo + i as i64).collect()
            }
            None => {
                let mut v = self.to_vec();
                v.sort_unstable();
                v.dedup();
                v.into()
            }
        }
    }

    fn is_strictly_increasing(&self) -> bool {
        self.runs.iter().all(|r| r.len == 1 || r.step > 0) && self.runs.windows(2).all(|p| p[0].last() < p[1].start)
    }

    /// Appends every index of `other`.
    pub fn extend_from(&mut self, other: &CellList) {
        for e in other.iter() {
            self.push(e);
        }
    }
}

impl FromIterator<i64> for CellList {
    fn from_iter<I: IntoIterator<Item = i64>>(iter: I) -> Self {
        let mut out = CellList::new();
        for e in iter {
            out.push(e);
        }
        out
    }
}

impl From<&[i64]> for CellList {
    /// The runs [`CellList::push`] would build, found a run at a time (a dense write of 2^22
    /// elements is one run, found in one tight pass).
    fn from(v: &[i64]) -> Self {
        let mut out = CellList { runs: Vec::new(), len: v.len() };
        let mut i = 0;
        while i < v.len() {
            let start = v[i];
            let step = v.get(i + 1).and_then(|&next| next.checked_sub(start)).and_then(|d| i32::try_from(d).ok());
            let Some(step) = step else {
                out.runs.push(Run { start, step: 0, len: 1 });
                i += 1;
                continue;
            };
            let mut j = i + 1;
            let most = (i + u32::MAX as usize).min(v.len());
            while j + 1 < most && v[j + 1].checked_sub(v[j]) == Some(i64::from(step)) {
                j += 1;
            }
            out.runs.push(Run { start, step, len: (j - i + 1) as u32 });
            i = j + 1;
        }
        out
    }
}

impl From<Vec<i64>> for CellList {
    fn from(v: Vec<i64>) -> Self {
        v.as_slice().into()
    }
}

/// Serialized as the plain list of indices.
impl serde::Serialize for CellList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(v: &[i64]) -> CellList {
        let c = CellList::from(v);
        assert_eq!(c.to_vec(), v);
        assert_eq!(c.len(), v.len());
        c
    }

    #[test]
    fn dense_and_strided_writes_are_one_run() {
        assert_eq!(round_trip(&(0..1 << 20).collect::<Vec<_>>()).runs.len(), 1);
        assert_eq!(round_trip(&(5..4096).step_by(7).collect::<Vec<_>>()).runs.len(), 1);
        // A column of a 4 x 3 matrix, then a 2 x 2 block: one run per block row.
        assert_eq!(round_trip(&[1, 4, 7, 10]).runs.len(), 1);
        assert_eq!(round_trip(&[4, 5, 7, 8]).runs.len(), 2);
    }

    #[test]
    fn any_list_round_trips() {
        round_trip(&[]);
        round_trip(&[3]);
        round_trip(&[3, 3, 3, 1, 9, -2, i64::MAX, i64::MIN, 0, 0, 5]);
        round_trip(&[0, 1 << 40, 2 << 40, 7]);
        let irregular: Vec<i64> = (0..1000).map(|i| (i * i * 7919) % 1013).collect();
        let c = round_trip(&irregular);
        assert!(c.runs.len() * std::mem::size_of::<Run>() <= irregular.len() * 8 + 16, "never much larger than a Vec");
    }

    #[test]
    fn sorted_unique_sorts_and_dedups() {
        assert_eq!(CellList::from(vec![5, 1, 3, 1, 5]).into_sorted_unique().to_vec(), vec![1, 3, 5]);
        let sorted = CellList::from(vec![0, 2, 4, 9]);
        assert_eq!(sorted.clone().into_sorted_unique(), sorted);
        assert_eq!(CellList::from(vec![2, 2]).into_sorted_unique().to_vec(), vec![2]);
        assert!(CellList::new().into_sorted_unique().is_empty());
        assert_eq!(
            CellList::from(vec![i64::MAX, 0, i64::MIN]).into_sorted_unique().to_vec(),
            vec![i64::MIN, 0, i64::MAX]
        );
    }

    #[test]
    fn built_at_once_as_pushed_one_by_one() {
        let lists: Vec<Vec<i64>> = vec![
            vec![i64::MAX, i64::MIN, i64::MIN + 1, 0],
            vec![0, 0, 0, 1, 2, 3, 3, 3],
            vec![0, 3_000_000_000, 6_000_000_000, 1, 2],
            (0..500).map(|i| (i * i * 31) % 97 + i / 10).collect(),
        ];
        for v in lists {
            let pushed: CellList = v.iter().copied().collect();
            assert_eq!(CellList::from(v.as_slice()), pushed, "{v:?}");
        }
        for (start, n) in [(0, 0), (7, 1), (-3, 2), (100, 1000)] {
            assert_eq!(CellList::range(start, n), (start..start + n as i64).collect::<CellList>());
        }
    }

    #[test]
    fn equal_lists_are_equal_values() {
        let a: CellList = [1, 2, 3, 10].into_iter().collect();
        let mut b = CellList::from(vec![1, 2]);
        b.extend_from(&CellList::from(vec![3, 10]));
        assert_eq!(a, b);
    }
}
