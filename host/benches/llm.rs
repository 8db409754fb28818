//! Host cost per streamed event: the full provider path (SSE parse, event decode, accumulation
//! into a `Response`, and a sink that appends text to a `String` as a stand-in for printing)
//! against a bare SSE parse of the same stream.
//!
//! The streams mimic real answers: 2000 text deltas of one short word each, framed exactly
//! as the Anthropic Messages and OpenAI Chat Completions APIs stream them, delivered in 1 KiB
//! chunks as socket reads would.
//!
//! `cargo bench -p warden --bench llm`

#![allow(missing_docs)]

use std::hint::black_box;
use std::ops::ControlFlow;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warden::domain::StreamEvent;
use warden::llm::sse::SseParser;
use warden::llm::{Wire, replay_stream};

const DELTAS: usize = 2000;
const CHUNK: usize = 1024;
const WORDS: [&str; 8] = [
    "the ", "host ", "streams ", "tokens ", "as ", "they ", "arrive", ". ",
];

fn expected_text() -> String {
    (0..DELTAS).map(|i| WORDS[i % WORDS.len()]).collect()
}

fn anthropic_stream() -> String {
    let mut s = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":2095,\"output_tokens\":1}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
         event: ping\ndata: {\"type\": \"ping\"}\n\n",
    );
    for i in 0..DELTAS {
        let word = WORDS[i % WORDS.len()];
        s.push_str(&format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{word}\"}}}}\n\n"
        ));
    }
    s.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
         event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":2000}}\n\n\
         event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    s
}

fn openai_stream() -> String {
    let head = "data: {\"id\":\"chatcmpl-01\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4.1\",\"system_fingerprint\":\"fp_01\",\"choices\":[{\"index\":0,\"delta\":";
    let mut s = format!(
        "{head}{{\"role\":\"assistant\",\"content\":\"\"}},\"logprobs\":null,\"finish_reason\":null}}]}}\n\n"
    );
    for i in 0..DELTAS {
        let word = WORDS[i % WORDS.len()];
        s.push_str(&format!(
            "{head}{{\"content\":\"{word}\"}},\"logprobs\":null,\"finish_reason\":null}}]}}\n\n"
        ));
    }
    s.push_str(&format!(
        "{head}{{}},\"logprobs\":null,\"finish_reason\":\"stop\"}}]}}\n\n"
    ));
    s.push_str("data: {\"id\":\"chatcmpl-01\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":2095,\"completion_tokens\":2000,\"total_tokens\":4095}}\n\n");
    s.push_str("data: [DONE]\n\n");
    s
}

fn bench_wire(c: &mut Criterion, name: &str, wire: Wire, stream: &str) {
    let chunks: Vec<&[u8]> = stream.as_bytes().chunks(CHUNK).collect();
    let mut events = Vec::new();
    let mut parser = SseParser::new();
    for chunk in &chunks {
        parser.feed(chunk, &mut events);
    }
    let count = events.len() as u64;
    let decoded = replay_stream(wire, chunks.iter().copied(), &mut |_| {});
    assert!(
        decoded.is_ok_and(|r| r.text == expected_text()),
        "the {name} stream must decode"
    );

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(count));
    group.bench_function("sse_parse", |b| {
        b.iter(|| {
            let mut parser = SseParser::new();
            let mut n = 0usize;
            for chunk in &chunks {
                let _: ControlFlow<()> = parser.feed_with(black_box(chunk), |ev| {
                    black_box(ev);
                    n += 1;
                    ControlFlow::Continue(())
                });
            }
            n
        });
    });
    group.bench_function("decode_accumulate_print", |b| {
        b.iter(|| {
            let mut printed = String::new();
            let mut sink = |e: &StreamEvent| {
                if let StreamEvent::TextDelta(t) = e {
                    printed.push_str(t);
                }
            };
            let r = replay_stream(wire, chunks.iter().map(|c| black_box(*c)), &mut sink);
            black_box(&printed);
            r.map(|r| r.text.len()).unwrap_or(0)
        });
    });
    group.finish();
}

fn streams(c: &mut Criterion) {
    bench_wire(c, "anthropic_stream", Wire::Anthropic, &anthropic_stream());
    bench_wire(c, "openai_stream", Wire::OpenAi, &openai_stream());
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50);
    targets = streams
}
criterion_main!(benches);
