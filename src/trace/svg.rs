//! The SVG timeline: a title, a legend, one lane per worker (its name on the left), a time
//! axis, and the pool's counters in a caption.
//!
//! In a lane, a span nested in another (a piece inside the stolen job that runs its loop,
//! a job run while waiting inside another) is drawn inside it, inset by its depth, so
//! nesting reads as frames within frames. Sleeps are thin grey bars at mid-height. A steal
//! is an arrow from the victim's lane to the thief's at the moment of the steal; a job taken
//! from the injector is a small triangle on top of the lane. Spans narrower than a pixel
//! that follow each other in one lane at one depth and of one kind are merged into one bar
//! (its tooltip says how many), which bounds the file's size by the picture's, not by the
//! number of events.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::ops::Range;
use std::time::Duration;

use super::{JobKind, MarkKind, SpanKind, Trace};

const WIDTH: f64 = 1200.0;
const LEFT: f64 = 118.0;
const RIGHT: f64 = 24.0;
const LANES_TOP: f64 = 84.0;
/// Lanes share about this much height, each between `MIN_LANE` and `MAX_LANE` pixels.
const LANES_HEIGHT: f64 = 440.0;
const MIN_LANE: f64 = 10.0;
const MAX_LANE: f64 = 44.0;

/// What a bar or legend entry shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Job(JobKind),
    Piece,
    Sleep,
}

impl Class {
    fn colour(self) -> &'static str {
        match self {
            Class::Job(JobKind::Join) => "#4e79a7",
            Class::Job(JobKind::Scope) => "#f28e2b",
            Class::Job(JobKind::Spawn) => "#e15759",
            Class::Job(JobKind::Broadcast) => "#76b7b2",
            Class::Job(JobKind::Install) => "#c9bfb5",
            Class::Job(JobKind::Future) => "#b07aa1",
            Class::Job(_) => "#9c755f",
            Class::Piece => "#59a14f",
            Class::Sleep => "#bdbdbd",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Class::Job(JobKind::Join) => "join half (stolen)",
            Class::Job(JobKind::Scope) => "scope task",
            Class::Job(JobKind::Spawn) => "spawn",
            Class::Job(JobKind::Broadcast) => "broadcast",
            Class::Job(JobKind::Install) => "install / injected",
            Class::Job(JobKind::Future) => "future poll",
            Class::Job(_) => "other job",
            Class::Piece => "loop piece",
            Class::Sleep => "asleep",
        }
    }

    const ALL: [Class; 9] = [
        Class::Job(JobKind::Install),
        Class::Job(JobKind::Join),
        Class::Job(JobKind::Scope),
        Class::Job(JobKind::Spawn),
        Class::Job(JobKind::Broadcast),
        Class::Job(JobKind::Future),
        Class::Job(JobKind::Other),
        Class::Piece,
        Class::Sleep,
    ];
}

fn class_of(kind: &SpanKind) -> Class {
    match kind {
        SpanKind::Job(kind) => Class::Job(*kind),
        SpanKind::Piece { .. } => Class::Piece,
        SpanKind::Sleep => Class::Sleep,
    }
}

/// Maps times to x and workers to lanes.
struct Layout {
    origin: Duration,
    nanos_per_px: f64,
    lane: f64,
    gap: f64,
}

impl Layout {
    fn x(&self, time: Duration) -> f64 {
        let nanos = time.saturating_sub(self.origin).as_nanos() as f64;
        LEFT + nanos / self.nanos_per_px
    }

    fn lane_top(&self, worker: usize) -> f64 {
        LANES_TOP + worker as f64 * (self.lane + self.gap)
    }

    fn lane_middle(&self, worker: usize) -> f64 {
        self.lane_top(worker) + self.lane / 2.0
    }

    fn lanes_bottom(&self, workers: usize) -> f64 {
        LANES_TOP + workers as f64 * (self.lane + self.gap) - self.gap
    }
}

/// A bar about to be drawn: one span, or several merged narrow ones.
struct Bar {
    class: Class,
    depth: usize,
    x0: f64,
    x1: f64,
    count: usize,
    /// The tooltip of a single span.
    title: String,
    /// For merged pieces: the lowest and highest index covered.
    indices: Option<(usize, usize)>,
    busy: Duration,
}

/// The time span the events cover: from the earliest start to the latest end (the trace's
/// interval if there are no events).
fn extent(trace: &Trace) -> Range<Duration> {
    let starts = trace.spans().iter().map(|span| span.start);
    let ends = trace.spans().iter().map(|span| span.end);
    let times = trace.marks().iter().map(|mark| mark.time);
    let first = starts.chain(times.clone()).min();
    let last = ends.chain(times).max();
    match (first, last) {
        (Some(first), Some(last)) => first..last.max(first),
        _ => trace.interval(),
    }
}

pub(super) fn write(trace: &Trace, out: impl Write) -> io::Result<()> {
    let workers = trace.num_workers().max(1);
    let extent = extent(trace);
    let length = extent
        .end
        .saturating_sub(extent.start)
        .max(Duration::from_micros(1));
    let lane = (LANES_HEIGHT / workers as f64)
        .clamp(MIN_LANE, MAX_LANE)
        .floor();
    let layout = Layout {
        origin: extent.start,
        nanos_per_px: length.as_nanos() as f64 / (WIDTH - LEFT - RIGHT),
        lane,
        gap: if lane >= 20.0 { 4.0 } else { 2.0 },
    };
    let bottom = layout.lanes_bottom(workers);
    let height = bottom + 96.0;

    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {WIDTH} {height:.0}\" font-family=\"sans-serif\">\n\
         <defs><marker id=\"steal\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" \
         markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" \
         fill=\"#222\"/></marker><marker id=\"range-steal\" viewBox=\"0 0 10 10\" refX=\"9\" \
         refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\">\
         <path d=\"M0,0L10,5L0,10z\" fill=\"#b2182b\"/></marker></defs>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    let _ = writeln!(
        svg,
        "<text x=\"{LEFT}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">weft schedule: {} \
         worker{}, {}</text>",
        trace.num_workers(),
        if trace.num_workers() == 1 { "" } else { "s" },
        duration_label(length)
    );
    legend(&mut svg, trace);
    lanes(&mut svg, trace, &layout, workers);
    bars(&mut svg, trace, &layout);
    marks(&mut svg, trace, &layout);
    axis(&mut svg, &layout, length, bottom);
    caption(&mut svg, trace, bottom);
    svg.push_str("</svg>\n");
    let mut out = out;
    out.write_all(svg.as_bytes())
}

fn legend(svg: &mut String, trace: &Trace) {
    let present = |class: Class| {
        trace
            .spans()
            .iter()
            .any(|span| class_of(&span.kind) == class)
    };
    let mut x = LEFT;
    let y = 46.0;
    for class in Class::ALL.into_iter().filter(|&class| present(class)) {
        let _ = writeln!(
            svg,
            "<rect x=\"{x}\" y=\"{}\" width=\"14\" height=\"12\" fill=\"{}\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"12\">{}</text>",
            y - 10.0,
            class.colour(),
            x + 18.0,
            y,
            class.label()
        );
        x += 26.0 + 6.5 * class.label().len() as f64;
    }
    let marks = trace.marks();
    let any = |wanted: fn(&MarkKind) -> bool| marks.iter().any(|mark| wanted(&mark.kind));
    if any(|kind| matches!(kind, MarkKind::Steal { .. })) {
        legend_arrow(
            svg,
            &mut x,
            y,
            "steal",
            "#222",
            "job stolen (victim → thief)",
        );
    }
    if any(|kind| matches!(kind, MarkKind::RangeSteal { .. })) {
        legend_arrow(
            svg,
            &mut x,
            y,
            "range-steal",
            "#b2182b",
            "loop range stolen",
        );
    }
    if any(|kind| matches!(kind, MarkKind::Injected)) {
        let _ = writeln!(
            svg,
            "<path d=\"M{},{}l8,0l-4,7z\" fill=\"#222\"/><text x=\"{}\" y=\"{y}\" \
             font-size=\"12\">taken from the injector</text>",
            x,
            y - 9.0,
            x + 12.0
        );
    }
}

fn legend_arrow(svg: &mut String, x: &mut f64, y: f64, marker: &str, colour: &str, label: &str) {
    let _ = writeln!(
        svg,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{colour}\" stroke-width=\"1.5\" \
         marker-end=\"url(#{marker})\"/><text x=\"{}\" y=\"{y}\" font-size=\"12\">{label}</text>",
        *x,
        y - 4.0,
        *x + 16.0,
        y - 4.0,
        *x + 22.0
    );
    *x += 30.0 + 6.5 * label.len() as f64;
}

fn lanes(svg: &mut String, trace: &Trace, layout: &Layout, workers: usize) {
    let font = (layout.lane * 0.6).clamp(7.0, 12.0);
    for worker in 0..workers {
        let top = layout.lane_top(worker);
        let _ = writeln!(
            svg,
            "<rect class=\"lane\" x=\"{LEFT}\" y=\"{top}\" width=\"{}\" height=\"{}\" \
             fill=\"#f4f4f4\"/>\
             <text x=\"{}\" y=\"{:.1}\" font-size=\"{font:.0}\" text-anchor=\"end\" \
             dominant-baseline=\"middle\">{}</text>",
            WIDTH - LEFT - RIGHT,
            layout.lane,
            LEFT - 6.0,
            layout.lane_middle(worker),
            escape(&short_name(trace, worker))
        );
    }
}

fn short_name(trace: &Trace, worker: usize) -> String {
    if worker >= trace.num_workers() {
        return String::new();
    }
    let name = trace.worker_name(worker);
    if name.chars().count() > 16 {
        let head: String = name.chars().take(15).collect();
        format!("{head}…")
    } else {
        name.to_owned()
    }
}

/// Draws the spans, lane by lane, outer before inner.
fn bars(svg: &mut String, trace: &Trace, layout: &Layout) {
    let spans = trace.spans();
    let mut start = 0;
    while start < spans.len() {
        let worker = spans[start].worker;
        let end = start + spans[start..].partition_point(|span| span.worker == worker);
        lane_bars(svg, trace, layout, worker, start..end);
        start = end;
    }
}

fn lane_bars(
    svg: &mut String,
    trace: &Trace,
    layout: &Layout,
    worker: usize,
    range: std::ops::Range<usize>,
) {
    // Spans come ordered by start, outer first: a stack of open ends gives each its depth.
    let mut open: Vec<Duration> = Vec::new();
    let mut pending: Vec<Option<Bar>> = Vec::new();
    let mut drawn: Vec<Bar> = Vec::new();
    for span in &trace.spans()[range] {
        while open.last().is_some_and(|&end| end <= span.start) {
            open.pop();
        }
        let depth = open.len();
        open.push(span.end);
        let class = class_of(&span.kind);
        let (x0, x1) = (layout.x(span.start), layout.x(span.end));
        let busy = span.end.saturating_sub(span.start);
        if pending.len() <= depth {
            pending.resize_with(depth + 1, || None);
        }
        let indices = match &span.kind {
            SpanKind::Piece { indices, .. } => Some((indices.start, indices.end)),
            _ => None,
        };
        if let Some(bar) = &mut pending[depth] {
            let narrow = x1 - x0 < 1.0 && bar.x1 - bar.x0 < 3.0;
            if bar.class == class && narrow && x0 - bar.x1 < 0.75 {
                bar.x1 = bar.x1.max(x1);
                bar.count += 1;
                bar.busy += busy;
                if let (Some((low, high)), Some((first, end))) = (&mut bar.indices, indices) {
                    *low = (*low).min(first);
                    *high = (*high).max(end);
                }
                continue;
            }
        }
        let bar = Bar {
            class,
            depth,
            x0,
            x1,
            count: 1,
            title: span_title(&span.kind, busy),
            indices,
            busy,
        };
        if let Some(done) = pending[depth].replace(bar) {
            drawn.push(done);
        }
    }
    drawn.extend(pending.into_iter().flatten());
    // Outer bars first, so that inner ones are drawn over them.
    drawn.sort_by_key(|bar| bar.depth);
    for bar in &drawn {
        draw_bar(svg, layout, worker, bar);
    }
}

fn span_title(kind: &SpanKind, busy: Duration) -> String {
    let what = match kind {
        SpanKind::Job(kind) => format!("{} job", kind.name()),
        SpanKind::Piece { loop_id, indices } => format!(
            "piece {}..{} ({} items) of loop {}",
            indices.start,
            indices.end,
            indices.len(),
            loop_label(*loop_id)
        ),
        SpanKind::Sleep => "asleep".to_owned(),
    };
    format!("{what}, {}", duration_label(busy))
}

/// A loop id as `worker.sequence` (the worker that started it, and its count there).
fn loop_label(loop_id: u64) -> String {
    format!("{}.{}", loop_id >> 32, loop_id & 0xFFFF_FFFF)
}

fn draw_bar(svg: &mut String, layout: &Layout, worker: usize, bar: &Bar) {
    let top = layout.lane_top(worker);
    let (y, height) = if bar.class == Class::Sleep {
        let height = (layout.lane / 4.0).max(2.0);
        (top + (layout.lane - height) / 2.0, height)
    } else {
        let inset = (layout.lane / 9.0).max(1.0);
        let height = (layout.lane - 2.0 * inset * bar.depth as f64).max(2.0);
        (top + (layout.lane - height) / 2.0, height)
    };
    let width = (bar.x1 - bar.x0).max(0.4);
    let title = if bar.count == 1 {
        bar.title.clone()
    } else {
        let what = match (bar.class, bar.indices) {
            (Class::Piece, Some((low, high))) => format!("pieces within {low}..{high}"),
            (class, _) => class.label().to_owned(),
        };
        format!("{} × {what}, {} busy", bar.count, duration_label(bar.busy))
    };
    let _ = writeln!(
        svg,
        "<rect x=\"{:.2}\" y=\"{y:.1}\" width=\"{width:.2}\" height=\"{height:.1}\" \
         fill=\"{}\" stroke=\"white\" stroke-width=\"{}\"><title>{}</title></rect>",
        bar.x0,
        bar.class.colour(),
        if width > 3.0 { "0.5" } else { "0" },
        escape(&title)
    );
}

fn marks(svg: &mut String, trace: &Trace, layout: &Layout) {
    for mark in trace.marks() {
        let x = layout.x(mark.time);
        let thief = layout.lane_middle(mark.worker);
        match &mark.kind {
            MarkKind::Steal { victim } => arrow(svg, x, layout, *victim, thief, "steal", "#222"),
            MarkKind::RangeSteal { victim, .. } => {
                arrow(svg, x, layout, *victim, thief, "range-steal", "#b2182b")
            }
            MarkKind::Injected => {
                let _ = writeln!(
                    svg,
                    "<path d=\"M{:.2},{:.1}l6,0l-3,5z\" fill=\"#222\"/>",
                    x - 3.0,
                    layout.lane_top(mark.worker)
                );
            }
        }
    }
}

fn arrow(
    svg: &mut String,
    x: f64,
    layout: &Layout,
    victim: usize,
    thief_y: f64,
    marker: &str,
    colour: &str,
) {
    let from = layout.lane_middle(victim);
    // Stop short of the thief's lane middle, so that the head sits on the lane's edge.
    let to = if from < thief_y {
        thief_y - layout.lane / 2.0
    } else {
        thief_y + layout.lane / 2.0
    };
    let _ = writeln!(
        svg,
        "<line x1=\"{x:.2}\" y1=\"{from:.1}\" x2=\"{x:.2}\" y2=\"{to:.1}\" stroke=\"{colour}\" \
         stroke-width=\"1.2\" marker-end=\"url(#{marker})\"/>"
    );
}

fn axis(svg: &mut String, layout: &Layout, length: Duration, bottom: f64) {
    let y = bottom + 8.0;
    let _ = writeln!(
        svg,
        "<line x1=\"{LEFT}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#444\"/>",
        WIDTH - RIGHT
    );
    let step = tick_step(length);
    let mut tick = Duration::ZERO;
    while tick <= length {
        let x = layout.x(layout.origin + tick);
        let _ = writeln!(
            svg,
            "<line x1=\"{x:.2}\" y1=\"{y}\" x2=\"{x:.2}\" y2=\"{}\" stroke=\"#444\"/>\
             <line x1=\"{x:.2}\" y1=\"{LANES_TOP}\" x2=\"{x:.2}\" y2=\"{bottom}\" \
             stroke=\"#000\" stroke-opacity=\"0.08\"/>\
             <text x=\"{x:.2}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            y + 5.0,
            y + 18.0,
            if tick.is_zero() {
                "0".to_owned()
            } else {
                duration_label(tick)
            }
        );
        tick += step;
    }
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\" fill=\"#444\">time since \
         the first event</text>",
        WIDTH - RIGHT,
        y + 32.0
    );
}

/// A round step (1, 2 or 5 times a power of ten nanoseconds) giving 5 to 10 ticks.
fn tick_step(length: Duration) -> Duration {
    let target = (length.as_nanos() as f64 / 8.0).max(1.0);
    let power = 10f64.powi(target.log10().floor() as i32);
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|factor| factor * power)
        .find(|&step| step >= target)
        .unwrap_or(10.0 * power);
    Duration::from_nanos(step.round().max(1.0) as u64)
}

fn caption(svg: &mut String, trace: &Trace, bottom: f64) {
    let stats = trace.stats();
    let first = format!(
        "pool counters over the trace: jobs executed {}, stolen {}, taken from the injector {}; \
         forks published {}; wake-ups {}",
        stats.jobs_executed,
        stats.jobs_stolen,
        stats.jobs_injected,
        stats.forks_published,
        stats.wakeups
    );
    let second = format!(
        "loops: range steals {}, chunks taken {}; recorded: {} spans, {} marks, {} records dropped",
        stats.range_steals,
        stats.chunks_taken,
        trace.spans().len(),
        trace.marks().len(),
        trace.dropped()
    );
    for (line, text) in [first, second].iter().enumerate() {
        let _ = writeln!(
            svg,
            "<text x=\"{LEFT}\" y=\"{}\" font-size=\"12\" fill=\"#222\">{}</text>",
            bottom + 62.0 + 18.0 * line as f64,
            escape(text)
        );
    }
}

/// `time` with a unit that keeps three significant digits or fewer.
fn duration_label(time: Duration) -> String {
    let nanos = time.as_nanos() as f64;
    let (value, unit) = if nanos >= 1e9 {
        (nanos / 1e9, "s")
    } else if nanos >= 1e6 {
        (nanos / 1e6, "ms")
    } else if nanos >= 1e3 {
        (nanos / 1e3, "µs")
    } else {
        (nanos, "ns")
    };
    let digits = if value == 0.0 || value >= 100.0 || value.fract() == 0.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{value:.digits$}");
    // "1.50" reads as "1.5"; "2.00" as "2".
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    };
    format!("{text} {unit}")
}

/// Text escaped for XML content and attribute values.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_labels_short() {
        assert_eq!(
            tick_step(Duration::from_millis(10)),
            Duration::from_micros(2000)
        );
        assert_eq!(
            tick_step(Duration::from_micros(35)),
            Duration::from_micros(5)
        );
        assert_eq!(tick_step(Duration::from_nanos(3)), Duration::from_nanos(1));
        assert_eq!(duration_label(Duration::from_micros(1500)), "1.5 ms");
        assert_eq!(duration_label(Duration::from_millis(2)), "2 ms");
        assert_eq!(duration_label(Duration::from_nanos(12_345)), "12.3 µs");
        assert_eq!(duration_label(Duration::ZERO), "0 ns");
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
