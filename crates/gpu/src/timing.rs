//! What a kernel cost, told honestly. GPU timers have a resolution (a tick period, and in
//! browsers a deliberate quantization of about 65.5 us), and a duration near that resolution is
//! noise; so a timing says which clock measured it, what that clock can resolve, and leaves the
//! time out rather than print a number the clock could not measure. Repeats give a spread, and
//! for kernels too short for one measurement, an estimate over the whole batch.

use serde::Serialize;

use crate::kernel::KernelSpec;

/// A duration is reported only when it spans at least this many clock quanta, so that the
/// quantization error stays within 1/4 (25%) of the value.
pub const MIN_QUANTA: f64 = 4.0;

/// Which clock measured a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimingSource {
    /// GPU timestamps written at the beginning and end of the kernel's compute pass.
    Timestamp,
    /// Host time from submit until the queue reports the work done: includes submission and
    /// completion latency, so it is an upper bound on the kernel's time.
    Wallclock,
    /// Host time around the CPU backend's execution of the kernel IR.
    Cpu,
}

/// Minimum, median and maximum of the per-repeat durations.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    min_ns: f64,
    median_ns: f64,
    max_ns: f64,
}

impl Spread {
    /// `None` for no samples. NaN samples sort last (they cannot come from a clock).
    pub fn of(samples: &[f64]) -> Option<Spread> {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let (&min_ns, &max_ns) = (sorted.first()?, sorted.last()?);
        let median_ns = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
        Some(Spread { min_ns, median_ns, max_ns })
    }
    pub fn min_ns(&self) -> f64 {
        self.min_ns
    }
    pub fn median_ns(&self) -> f64 {
        self.median_ns
    }
    pub fn max_ns(&self) -> f64 {
        self.max_ns
    }
}

/// One kernel's measurement over all its repeats.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelTiming {
    name: String,
    wgsl: String,
    workgroups: [u32; 3],
    workgroup_size: [u32; 3],
    bytes_read: u64,
    bytes_written: u64,
    flops: u64,
    time_ns: Option<f64>,
    source: TimingSource,
    resolution_ns: f64,
    below_resolution: bool,
    estimated: bool,
    gbps: Option<f64>,
    gflops: Option<f64>,
    repeats: u32,
    spread_ns: Option<Spread>,
    start_ns: f64,
    span_ns: f64,
}

impl KernelTiming {
    /// Builds a timing from per-repeat durations. `start_ns` is when the first repeat began and
    /// `span_ns` the time from that to the end of the last, both on the run's clock. Also for a
    /// timing measured outside this crate (the CPU backend): the same derived figures and
    /// resolution rules as a GPU one.
    pub fn new(
        spec: &KernelSpec,
        source: TimingSource,
        resolution_ns: f64,
        samples: &[f64],
        start_ns: f64,
        span_ns: f64,
    ) -> KernelTiming {
        let repeats = samples.len() as u32;
        let spread = Spread::of(samples);
        let resolved = |t: f64| t >= MIN_QUANTA * resolution_ns;
        let median = spread.map(|s| s.median_ns);
        let below_resolution = !median.is_some_and(resolved);
        let (time_ns, estimated) = match median {
            Some(m) if !below_resolution => (Some(m), false),
            // Back-to-back repeats measured as one batch: the quantization error is paid once.
            _ if repeats > 1 && resolved(span_ns) => (Some(span_ns / f64::from(repeats)), true),
            _ => (None, false),
        };
        let per_ns = |amount: u64| time_ns.filter(|&t| t > 0.0).map(|t| amount as f64 / t);
        KernelTiming {
            name: spec.name().to_owned(),
            wgsl: spec.wgsl().to_owned(),
            workgroups: spec.workgroups(),
            workgroup_size: spec.workgroup_size(),
            bytes_read: spec.bytes_read(),
            bytes_written: spec.bytes_written(),
            flops: spec.flops(),
            time_ns,
            source,
            resolution_ns,
            below_resolution,
            estimated,
            // bytes per ns is GB/s, flops per ns is GFLOP/s.
            gbps: per_ns(spec.bytes_read() + spec.bytes_written()),
            gflops: per_ns(spec.flops()),
            repeats,
            spread_ns: spread.filter(|_| repeats > 1 && !below_resolution),
            start_ns,
            span_ns,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn wgsl(&self) -> &str {
        &self.wgsl
    }
    pub fn workgroups(&self) -> [u32; 3] {
        self.workgroups
    }
    pub fn workgroup_size(&self) -> [u32; 3] {
        self.workgroup_size
    }
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }
    pub fn bytes_written(&self) -> u64 {
        self.bytes_written
    }
    pub fn flops(&self) -> u64 {
        self.flops
    }
    /// The kernel's time: the median repeat when that is resolved, else (with `estimated`) the
    /// batch of back-to-back repeats divided by their number, else `None`.
    pub fn time_ns(&self) -> Option<f64> {
        self.time_ns
    }
    pub fn source(&self) -> TimingSource {
        self.source
    }
    /// The clock's quantum: the tick period, or the coarser step the timestamps show (browsers
    /// round them), or the host clock's observed step.
    pub fn resolution_ns(&self) -> f64 {
        self.resolution_ns
    }
    /// True when one repeat is shorter than [`MIN_QUANTA`] quanta of the clock, so no single
    /// measurement is meaningful.
    pub fn below_resolution(&self) -> bool {
        self.below_resolution
    }
    /// True when `time_ns` comes from the batch of repeats rather than from single repeats; it
    /// then includes the gaps between the repeats' passes, so it is an upper bound.
    pub fn estimated(&self) -> bool {
        self.estimated
    }
    pub fn gbps(&self) -> Option<f64> {
        self.gbps
    }
    pub fn gflops(&self) -> Option<f64> {
        self.gflops
    }
    pub fn repeats(&self) -> u32 {
        self.repeats
    }
    /// Spread of the repeats; only with more than one repeat, each resolved.
    pub fn spread_ns(&self) -> Option<Spread> {
        self.spread_ns
    }
    /// When the first repeat began, from the start of the run.
    pub fn start_ns(&self) -> f64 {
        self.start_ns
    }
    /// From the beginning of the first repeat to the end of the last.
    pub fn span_ns(&self) -> f64 {
        self.span_ns
    }
}

/// A Chrome trace (opens in Perfetto and chrome://tracing once serialized as JSON): one complete
/// ("X") event per kernel covering its repeats, in microseconds, with the timing as the event's
/// arguments. Made by [`chrome_trace`]; the fields serialize to the trace-event format's keys.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChromeTrace<'a> {
    #[serde(rename = "traceEvents")]
    pub trace_events: Vec<TraceEvent<'a>>,
    #[serde(rename = "displayTimeUnit")]
    pub display_time_unit: &'static str,
}

/// One event of a [`ChromeTrace`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TraceEvent<'a> {
    /// The metadata ("M") event naming the process.
    Process { name: &'static str, ph: &'static str, pid: u32, tid: u32, args: ProcessName<'a> },
    /// One kernel over all its repeats.
    Kernel {
        name: &'a str,
        cat: &'static str,
        ph: &'static str,
        ts: f64,
        dur: f64,
        pid: u32,
        tid: u32,
        args: &'a KernelTiming,
    },
}

/// The arguments of the process-name event.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProcessName<'a> {
    pub name: &'a str,
}

/// The Chrome trace of `timings` under the process name `process_name`.
pub fn chrome_trace<'a>(process_name: &'a str, timings: &'a [KernelTiming]) -> ChromeTrace<'a> {
    let process =
        TraceEvent::Process { name: "process_name", ph: "M", pid: 1, tid: 1, args: ProcessName { name: process_name } };
    let kernels = timings.iter().map(|t| TraceEvent::Kernel {
        name: &t.name,
        cat: "kernel",
        ph: "X",
        ts: t.start_ns / 1e3,
        dur: t.span_ns / 1e3,
        pid: 1,
        tid: 1,
        args: t,
    });
    ChromeTrace { trace_events: std::iter::once(process).chain(kernels).collect(), display_time_unit: "ns" }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Case {
        samples: &'static [f64],
        resolution_ns: f64,
        span_ns: f64,
        time_ns: Option<f64>,
        below: bool,
        estimated: bool,
        spread: Option<(f64, f64, f64)>,
    }

    /// Builds a timing for a kernel that moves 1000 bytes and does 500 flops, and checks the
    /// reported time, flags, spread and rates.
    fn check(cases: &[Case]) {
        let spec = KernelSpec::new("k", "", "main").with_cost(600, 400, 500);
        for (i, c) in cases.iter().enumerate() {
            let t = KernelTiming::new(&spec, TimingSource::Timestamp, c.resolution_ns, c.samples, 0.0, c.span_ns);
            assert_eq!(t.time_ns(), c.time_ns, "case {i}");
            assert_eq!(t.below_resolution(), c.below, "case {i}");
            assert_eq!(t.estimated(), c.estimated, "case {i}");
            assert_eq!(t.repeats() as usize, c.samples.len(), "case {i}");
            let spread = t.spread_ns().map(|s| (s.min_ns(), s.median_ns(), s.max_ns()));
            assert_eq!(spread, c.spread, "case {i}");
            assert_eq!(t.gbps(), c.time_ns.map(|x| 1000.0 / x), "case {i}");
            assert_eq!(t.gflops(), c.time_ns.map(|x| 500.0 / x), "case {i}");
        }
    }

    #[test]
    fn resolution_decides_what_is_reported() {
        const Q: f64 = 65536.0;
        check(&[
            // One resolved sample: its value, no spread.
            Case {
                samples: &[100.0],
                resolution_ns: 1.0,
                span_ns: 100.0,
                time_ns: Some(100.0),
                below: false,
                estimated: false,
                spread: None,
            },
            // Odd and even counts: the median is the middle, or the mean of the two middles.
            Case {
                samples: &[30.0, 10.0, 20.0],
                resolution_ns: 1.0,
                span_ns: 80.0,
                time_ns: Some(20.0),
                below: false,
                estimated: false,
                spread: Some((10.0, 20.0, 30.0)),
            },
            Case {
                samples: &[10.0, 40.0, 20.0, 30.0],
                resolution_ns: 1.0,
                span_ns: 120.0,
                time_ns: Some(25.0),
                below: false,
                estimated: false,
                spread: Some((10.0, 25.0, 40.0)),
            },
            // Chrome-quantized repeats of a short kernel whose batch is still too short.
            Case {
                samples: &[0.0, Q, 0.0],
                resolution_ns: Q,
                span_ns: 3.0 * Q,
                time_ns: None,
                below: true,
                estimated: false,
                spread: None,
            },
            // Ten repeats whose batch spans enough quanta: estimated from the batch.
            Case {
                samples: &[0.0; 10],
                resolution_ns: Q,
                span_ns: 10.0 * Q,
                time_ns: Some(Q),
                below: true,
                estimated: true,
                spread: None,
            },
            // A single sample just under MIN_QUANTA quanta is not reported.
            Case {
                samples: &[3.9 * Q],
                resolution_ns: Q,
                span_ns: 3.9 * Q,
                time_ns: None,
                below: true,
                estimated: false,
                spread: None,
            },
            // A timer that measured nothing.
            Case {
                samples: &[0.0, 0.0],
                resolution_ns: f64::INFINITY,
                span_ns: 0.0,
                time_ns: None,
                below: true,
                estimated: false,
                spread: None,
            },
        ]);
    }
}
