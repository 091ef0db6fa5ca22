//! Where a query's time goes (tokenising vs scoring), for tuning.
//! Run: `cargo run --release -p tool-disclosure --example profile`

use std::path::Path;
use std::time::Instant;

use tool_disclosure::{load_catalog, load_queries, Analyzer, SearchIndex};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/tool-retrieval");
    let catalog = load_catalog(&root.join("catalog.json")).expect("catalog");
    let queries = load_queries(&root.join("dev.jsonl")).expect("queries");
    let analyzer = Analyzer::default();
    let index = SearchIndex::build(&catalog);
    for round in 0..2 {
        let start = Instant::now();
        for q in &queries {
            std::hint::black_box(analyzer.tokens(&q.query));
        }
        let tok = start.elapsed().as_secs_f64() * 1e6 / queries.len() as f64;
        let start = Instant::now();
        for q in &queries {
            std::hint::black_box(index.search(&q.query, 5, |_| true));
        }
        let all = start.elapsed().as_secs_f64() * 1e6 / queries.len() as f64;
        println!("round {round}: tokenise {tok:.1} us, whole query {all:.1} us (mean)");
    }
}
