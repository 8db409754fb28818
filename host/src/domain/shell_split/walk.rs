//! The walk over bash's syntax tree: every simple command, wherever it sits (lists, pipelines,
//! compound commands, substitutions, redirections).

use brush_parser::ParserOptions;
use brush_parser::ast::{
    AndOr, Assignment, AssignmentName, AssignmentValue, BinaryPredicate, Command,
    CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, ExtendedTestExpr, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Pipeline, RedirectList, SimpleCommand as AstSimple,
};

use super::word::{heredoc_body, plain_arithmetic, word};
use super::{MAX_DEPTH, Split, wrappers};

/// `[[ ]]`, `(( ))`, `for ((…))` and `coproc`: `/bin/sh` (which runs `shell` commands) reads
/// them as other commands.
const BASH_ONLY: &str =
    "bash-only syntax (`[[ ]]`, `(( ))`, `coproc`) that `/bin/sh` reads as other commands";

/// The parser's options: bash, with extended globs.
pub(super) fn options() -> ParserOptions {
    ParserOptions::default()
}

/// Every simple command of the program `text`.
pub(super) fn program(text: &str, depth: usize, out: &mut Split) {
    if depth > MAX_DEPTH {
        out.uncertain
            .push(format!("nested more than {MAX_DEPTH} deep"));
        return;
    }
    let mut parser =
        brush_parser::Parser::new(std::io::BufReader::new(text.as_bytes()), &options());
    match parser.parse_program() {
        Ok(program) => {
            for list in &program.complete_commands {
                compound_list(list, depth, out);
            }
        }
        Err(err) => out
            .uncertain
            .push(format!("cannot parse `{}`: {err}", text.trim())),
    }
}

fn compound_list(list: &CompoundList, depth: usize, out: &mut Split) {
    for item in &list.0 {
        pipeline(&item.0.first, depth, out);
        for next in &item.0.additional {
            match next {
                AndOr::And(p) | AndOr::Or(p) => pipeline(p, depth, out),
            }
        }
    }
}

fn pipeline(pipeline: &Pipeline, depth: usize, out: &mut Split) {
    // `time` is a keyword of bash and a program (`/usr/bin/time`) under `/bin/sh`.
    if pipeline.timed.is_some() {
        out.commands.push(super::SimpleCommand {
            words: vec![super::Word::literal("time")],
            wrapper: true,
        });
    }
    for command in &pipeline.seq {
        self::command(command, depth, out);
    }
}

fn command(command: &Command, depth: usize, out: &mut Split) {
    match command {
        Command::Simple(simple) => self::simple(simple, depth, out),
        Command::Compound(compound, redirects) => {
            self::compound(compound, depth, out);
            redirect_list(redirects.as_ref(), depth, out);
        }
        Command::Function(function) => out.uncertain.push(format!(
            "defines the function `{}` (a later command of that name runs its body)",
            function.fname.value
        )),
        Command::ExtendedTest(test, redirects) => {
            out.uncertain.push(BASH_ONLY.to_owned());
            test_expr(&test.expr, depth, out);
            redirect_list(redirects.as_ref(), depth, out);
        }
    }
}

fn compound(compound: &CompoundCommand, depth: usize, out: &mut Split) {
    match compound {
        CompoundCommand::Arithmetic(a) => {
            out.uncertain.push(BASH_ONLY.to_owned());
            arithmetic(&a.expr.value, out);
        }
        CompoundCommand::ArithmeticForClause(f) => {
            out.uncertain.push(BASH_ONLY.to_owned());
            for expr in [&f.initializer, &f.condition, &f.updater]
                .into_iter()
                .flatten()
            {
                arithmetic(&expr.value, out);
            }
            compound_list(&f.body.list, depth, out);
        }
        CompoundCommand::BraceGroup(g) => compound_list(&g.list, depth, out),
        CompoundCommand::Subshell(s) => compound_list(&s.list, depth, out),
        CompoundCommand::ForClause(f) => {
            for value in f.values.iter().flatten() {
                word(&value.value, depth, out);
            }
            compound_list(&f.body.list, depth, out);
        }
        CompoundCommand::CaseClause(c) => {
            word(&c.value.value, depth, out);
            for item in &c.cases {
                for pattern in &item.patterns {
                    word(&pattern.value, depth, out);
                }
                if let Some(list) = &item.cmd {
                    compound_list(list, depth, out);
                }
            }
        }
        CompoundCommand::IfClause(i) => {
            compound_list(&i.condition, depth, out);
            compound_list(&i.then, depth, out);
            for clause in i.elses.iter().flatten() {
                if let Some(condition) = &clause.condition {
                    compound_list(condition, depth, out);
                }
                compound_list(&clause.body, depth, out);
            }
        }
        CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
            compound_list(&w.0, depth, out);
            compound_list(&w.1.list, depth, out);
        }
        CompoundCommand::Coprocess(c) => {
            out.uncertain.push(BASH_ONLY.to_owned());
            command(&c.body, depth, out);
        }
    }
}

fn arithmetic(text: &str, out: &mut Split) {
    if !plain_arithmetic(text) {
        out.uncertain.push(format!(
            "arithmetic `{}` may evaluate a variable (bash runs `$(…)` found in its value)",
            text.trim()
        ));
    }
}

fn test_expr(expr: &ExtendedTestExpr, depth: usize, out: &mut Split) {
    match expr {
        ExtendedTestExpr::And(a, b) | ExtendedTestExpr::Or(a, b) => {
            test_expr(a, depth, out);
            test_expr(b, depth, out);
        }
        ExtendedTestExpr::Not(a) | ExtendedTestExpr::Parenthesized(a) => test_expr(a, depth, out),
        ExtendedTestExpr::UnaryTest(_, operand) => {
            if operand.value.contains('[') {
                out.uncertain.push(format!(
                    "`[[ … {} ]]` may evaluate an array subscript",
                    operand.value
                ));
            }
            word(&operand.value, depth, out);
        }
        ExtendedTestExpr::BinaryTest(predicate, left, right) => {
            let arithmetic = matches!(
                predicate,
                BinaryPredicate::ArithmeticEqualTo
                    | BinaryPredicate::ArithmeticNotEqualTo
                    | BinaryPredicate::ArithmeticLessThan
                    | BinaryPredicate::ArithmeticLessThanOrEqualTo
                    | BinaryPredicate::ArithmeticGreaterThan
                    | BinaryPredicate::ArithmeticGreaterThanOrEqualTo
            );
            for operand in [left, right] {
                if arithmetic && !plain_arithmetic(&operand.value) {
                    out.uncertain.push(format!(
                        "`[[ {} {predicate} {} ]]` is arithmetic and may evaluate a variable",
                        left.value, right.value
                    ));
                }
                word(&operand.value, depth, out);
            }
        }
    }
}

fn redirect_list(list: Option<&RedirectList>, depth: usize, out: &mut Split) {
    for redirect in list.iter().flat_map(|l| l.0.iter()) {
        self::redirect(redirect, depth, out);
    }
}

fn redirect(redirect: &IoRedirect, depth: usize, out: &mut Split) {
    match redirect {
        IoRedirect::File(_, kind, target) => match target {
            IoFileRedirectTarget::Filename(w) if writes(kind) => {
                written(&w.value, out);
                word(&w.value, depth, out);
            }
            IoFileRedirectTarget::Filename(w) | IoFileRedirectTarget::Duplicate(w) => {
                word(&w.value, depth, out);
            }
            IoFileRedirectTarget::Fd(_) => {}
            IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                compound_list(&sub.list, depth, out);
            }
        },
        IoRedirect::HereDocument(_, doc) => {
            if doc.requires_expansion {
                heredoc_body(&doc.doc.value, depth, out);
            }
        }
        IoRedirect::OutputAndError(w, _) => {
            written(&w.value, out);
            word(&w.value, depth, out);
        }
        IoRedirect::HereString(_, w) => {
            word(&w.value, depth, out);
        }
    }
}

/// A redirection that opens its file for writing (`>`, `>>`, `>|`, `<>`).
fn writes(kind: &IoFileRedirectKind) -> bool {
    matches!(
        kind,
        IoFileRedirectKind::Write
            | IoFileRedirectKind::Append
            | IoFileRedirectKind::Clobber
            | IoFileRedirectKind::ReadAndWrite
    )
}

/// Note a file a redirection writes, unless it is one that keeps nothing.
fn written(target: &str, out: &mut Split) {
    if !matches!(target, "/dev/null" | "/dev/stdout" | "/dev/stderr") {
        out.writes.push(target.to_owned());
    }
}

fn assignment(assignment: &Assignment, depth: usize, out: &mut Split) {
    assigned_name(assignment, out);
    match &assignment.value {
        AssignmentValue::Scalar(w) => {
            word(&w.value, depth, out);
        }
        AssignmentValue::Array(items) => {
            for (key, value) in items {
                if let Some(key) = key {
                    out.uncertain.push(format!(
                        "`[{}]=` in an array: a subscript is evaluated as arithmetic",
                        key.value
                    ));
                }
                word(&value.value, depth, out);
            }
        }
    }
}

fn assigned_name(assignment: &Assignment, out: &mut Split) {
    match &assignment.name {
        AssignmentName::VariableName(name) => {
            if wrappers::picks_programs(name) {
                out.uncertain.push(format!(
                    "sets `{name}`, which changes what later commands run"
                ));
            }
        }
        AssignmentName::ArrayElementName(name, index) => out.uncertain.push(format!(
            "`{name}[{index}]=`: an array subscript is evaluated as arithmetic"
        )),
    }
}

fn simple(simple: &AstSimple, depth: usize, out: &mut Split) {
    let mut words = Vec::new();
    for item in simple.prefix.iter().flat_map(|p| p.0.iter()) {
        prefix_or_suffix(item, depth, out, &mut words);
    }
    if let Some(name) = &simple.word_or_name {
        words.push(word(&name.value, depth, out));
    }
    for item in simple.suffix.iter().flat_map(|s| s.0.iter()) {
        prefix_or_suffix(item, depth, out, &mut words);
    }
    if !words.is_empty() {
        wrappers::argv(words, depth, out);
    }
}

fn prefix_or_suffix(
    item: &CommandPrefixOrSuffixItem,
    depth: usize,
    out: &mut Split,
    words: &mut Vec<super::Word>,
) {
    match item {
        CommandPrefixOrSuffixItem::IoRedirect(r) => redirect(r, depth, out),
        CommandPrefixOrSuffixItem::Word(w) => words.push(word(&w.value, depth, out)),
        CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
            if words.is_empty() {
                assignment(a, depth, out);
            } else {
                // `export NAME=value`, `declare NAME=value`: an argument of the command.
                assigned_name(a, out);
                words.push(word(&w.value, depth, out));
            }
        }
        CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
            compound_list(&sub.list, depth, out);
            words.push(super::Word {
                text: "<(…)".to_owned(),
                literal: false,
            });
        }
    }
}
