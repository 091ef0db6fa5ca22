//! Evaluate (and grid-search) the search parameters on the shared data.
//! Run: `cargo run --release -p tool-disclosure --example tune [grid]`

use std::path::Path;

use tool_disclosure::{
    compare_with_baseline, evaluate_index, load_catalog, load_queries, FieldParams, SearchConfig,
    SearchIndex,
};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/tool-retrieval");
    let catalog = load_catalog(&root.join("catalog.json")).expect("catalog");
    let queries = load_queries(&root.join("dev.jsonl")).expect("queries");
    let c = compare_with_baseline(&catalog, &queries);
    println!("toolstack {:?}\nbaseline  {:?}", c.toolstack, c.baseline);
    if std::env::args().nth(1).as_deref() == Some("grid") {
        for k1 in [0.9f32, 1.2, 1.6] {
            for wn in [1.0f32, 1.5, 2.0, 3.0] {
                for wpn in [0.3f32, 0.6, 1.0] {
                    for wpd in [0.2f32, 0.4, 0.7] {
                        let cfg = SearchConfig {
                            k1,
                            name: FieldParams { weight: wn, b: 0.5 },
                            param_names: FieldParams {
                                weight: wpn,
                                b: 0.5,
                            },
                            param_descriptions: FieldParams {
                                weight: wpd,
                                b: 0.75,
                            },
                            ..SearchConfig::default()
                        };
                        let mut idx = SearchIndex::with_config(cfg);
                        for t in &catalog {
                            idx.add(t);
                        }
                        let m = evaluate_index(&idx, &queries);
                        println!(
                            "r5 {:.4} r1 {:.4} ndcg {:.4} {cfg:?}",
                            m.recall_at_5, m.recall_at_1, m.ndcg_at_10
                        );
                    }
                }
            }
        }
    }
}
