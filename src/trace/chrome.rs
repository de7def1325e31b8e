//! Chrome trace-event JSON ("JSON object format" of the Trace Event Format document), as
//! Perfetto and `chrome://tracing` read it:
//!
//! - `M` (metadata) events name the process and one thread per worker (`tid` = index);
//! - spans are `X` (complete) events with `ts` and `dur` in microseconds;
//! - marks are `i` (instant) events scoped to their thread (`"s":"t"`);
//! - `otherData` holds the pool's counters over the trace's interval.

use std::io::{self, Write};
use std::time::Duration;

use super::{Mark, MarkKind, Span, SpanKind, Trace};

/// The `pid` of every event: one pool, one process lane.
const PID: u32 = 1;

pub(super) fn write(trace: &Trace, out: impl Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    out.write_all(b"{\"traceEvents\":[")?;
    let mut first = true;
    let mut event = |out: &mut io::BufWriter<_>, text: String| -> io::Result<()> {
        if !first {
            out.write_all(b",")?;
        }
        first = false;
        out.write_all(b"\n")?;
        out.write_all(text.as_bytes())
    };
    event(
        &mut out,
        format!(
            "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{PID},\"tid\":0,\
             \"args\":{{\"name\":\"weft pool\"}}}}"
        ),
    )?;
    for worker in 0..trace.num_workers() {
        event(
            &mut out,
            format!(
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{PID},\"tid\":{worker},\
                 \"args\":{{\"name\":{}}}}}",
                string(trace.worker_name(worker))
            ),
        )?;
        event(
            &mut out,
            format!(
                "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{PID},\"tid\":{worker},\
                 \"args\":{{\"sort_index\":{worker}}}}}"
            ),
        )?;
    }
    for span in trace.spans() {
        event(&mut out, complete_event(span))?;
    }
    for mark in trace.marks() {
        event(&mut out, instant_event(mark))?;
    }
    let stats = trace.stats();
    write!(
        out,
        "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{{\
         \"interval_start_us\":{},\"interval_end_us\":{},\"events_dropped\":{},\
         \"jobs_executed\":{},\"jobs_stolen\":{},\"jobs_injected\":{},\"forks_published\":{},\
         \"range_steals\":{},\"chunks_taken\":{},\"wakeups\":{}}}}}\n",
        micros(trace.interval().start),
        micros(trace.interval().end),
        trace.dropped(),
        stats.jobs_executed,
        stats.jobs_stolen,
        stats.jobs_injected,
        stats.forks_published,
        stats.range_steals,
        stats.chunks_taken,
        stats.wakeups,
    )?;
    out.flush()
}

fn complete_event(span: &Span) -> String {
    let (name, category, args) = match &span.kind {
        SpanKind::Job(kind) => (kind.name().to_owned(), "job", String::new()),
        SpanKind::Piece { loop_id, indices } => (
            format!("piece {}..{}", indices.start, indices.end),
            "piece",
            format!(
                ",\"args\":{{\"loop\":{loop_id},\"start\":{},\"end\":{},\"items\":{}}}",
                indices.start,
                indices.end,
                indices.len()
            ),
        ),
        SpanKind::Sleep => ("sleep".to_owned(), "sleep", String::new()),
    };
    format!(
        "{{\"name\":{},\"cat\":\"{category}\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\
         \"pid\":{PID},\"tid\":{}{args}}}",
        string(&name),
        micros(span.start),
        micros(span.end.saturating_sub(span.start)),
        span.worker
    )
}

fn instant_event(mark: &Mark) -> String {
    let (name, args) = match &mark.kind {
        MarkKind::Steal { victim } => (
            format!("steal from {victim}"),
            format!(",\"args\":{{\"victim\":{victim}}}"),
        ),
        MarkKind::Injected => ("injected".to_owned(), String::new()),
        MarkKind::RangeSteal {
            victim,
            loop_id,
            indices,
        } => (
            format!(
                "range steal {}..{} from {victim}",
                indices.start, indices.end
            ),
            format!(
                ",\"args\":{{\"victim\":{victim},\"loop\":{loop_id},\"start\":{},\"end\":{}}}",
                indices.start, indices.end
            ),
        ),
    };
    format!(
        "{{\"name\":{},\"cat\":\"mark\",\"ph\":\"i\",\"s\":\"t\",\"ts\":{},\"pid\":{PID},\
         \"tid\":{}{args}}}",
        string(&name),
        micros(mark.time),
        mark.worker
    )
}

/// Microseconds with nanosecond precision, as a JSON number.
fn micros(time: Duration) -> String {
    let nanos = time.as_nanos();
    format!("{}.{:03}", nanos / 1000, nanos % 1000)
}

/// A JSON string literal.
fn string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            c if u32::from(c) < 0x20 => quoted.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn strings_and_times_are_valid_json() {
        assert_eq!(string("a\"b\\c\n\u{1}é"), "\"a\\\"b\\\\c\\n\\u0001é\"");
        assert_eq!(micros(Duration::from_nanos(1_234_567)), "1234.567");
        assert_eq!(micros(Duration::from_nanos(5)), "0.005");
    }
}
