//! The integration tests, in one test binary: each module is the suite of one part of the
//! core, and one binary links once where a binary per file would link (with LTO) fifteen times.

mod common;
mod hostile;
mod reference;

mod budget;
mod capture;
mod examples;
mod json;
mod json_line;
mod json_text;
mod kernels;
mod normalize_capture;
mod notice_lines;
mod page;
mod properties;
mod restack;
mod snap;
mod terminal;
mod tokens_capture;
mod tokens_cut;
mod tokens_split;
mod tokens_vocab;
mod tool_output;
mod utf8;
