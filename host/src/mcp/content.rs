//! What the model sees of an MCP result: text blocks as they are, other blocks by a short
//! line (`[image: image/png, 1234 bytes base64]`), an embedded resource's text with its URI,
//! structured content as JSON when there is nothing else; then cut at the entry's cap (at a
//! UTF-8 boundary, with a note saying how much there was).

use serde_json::Value;

/// The text of a `tools/call` result (`content`, `structuredContent`) and its `isError`.
pub(super) fn tool_result_text(result: &Value) -> (String, bool) {
    let is_error = result["isError"].as_bool().unwrap_or(false);
    let mut parts: Vec<String> = result["content"]
        .as_array()
        .map(|blocks| blocks.iter().map(block_text).collect())
        .unwrap_or_default();
    if parts.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        parts.push(structured.to_string());
    }
    (parts.join("\n"), is_error)
}

/// The text of a `resources/read` result: its text contents joined, or why there is none.
pub(super) fn resource_text(result: &Value) -> Result<String, String> {
    let contents = result["contents"].as_array().cloned().unwrap_or_default();
    if contents.is_empty() {
        return Err("the server returned no contents".into());
    }
    let mut texts = Vec::new();
    for content in &contents {
        match content["text"].as_str() {
            Some(text) => texts.push(text.to_owned()),
            None => {
                return Err(format!(
                    "binary: {} is not text ({})",
                    content["uri"].as_str().unwrap_or("the resource"),
                    content["mimeType"].as_str().unwrap_or("no MIME type")
                ));
            }
        }
    }
    Ok(texts.join("\n"))
}

fn block_text(block: &Value) -> String {
    let kind = block["type"].as_str().unwrap_or("");
    match kind {
        "text" => block["text"].as_str().unwrap_or_default().to_owned(),
        "image" | "audio" => format!(
            "[{kind}: {}, {} bytes base64]",
            block["mimeType"].as_str().unwrap_or("unknown type"),
            block["data"].as_str().map_or(0, str::len)
        ),
        "resource" => {
            let resource = &block["resource"];
            let uri = resource["uri"].as_str().unwrap_or("?");
            match resource["text"].as_str() {
                Some(text) => format!("[resource {uri}]\n{text}"),
                None => format!("[resource {uri}: binary]"),
            }
        }
        "resource_link" => format!(
            "[resource link: {} {}]",
            block["uri"].as_str().unwrap_or("?"),
            block["name"].as_str().unwrap_or("")
        ),
        other => format!("[{other} content]"),
    }
}

/// `text` cut to `cap` bytes at a UTF-8 boundary, with a note when it was cut.
pub(super) fn capped(mut text: String, cap: u64) -> String {
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    if text.len() <= cap {
        return text;
    }
    let total = text.len();
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(&format!("\n[output cut at {end} of {total} bytes]"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_become_text_and_the_cap_cuts_on_a_boundary() {
        let result = json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "mimeType": "image/png", "data": "AAAA"},
            {"type": "resource", "resource": {"uri": "note://a", "text": "body"}}
        ], "isError": true});
        let (text, is_error) = tool_result_text(&result);
        assert!(is_error);
        assert_eq!(
            text,
            "hello\n[image: image/png, 4 bytes base64]\n[resource note://a]\nbody"
        );
        let (text, _) = tool_result_text(&json!({"content": [], "structuredContent": {"a": 1}}));
        assert_eq!(text, "{\"a\":1}");
        assert_eq!(capped("héllo".into(), 2), "h\n[output cut at 1 of 6 bytes]");
        assert_eq!(capped("abc".into(), 3), "abc");
        assert_eq!(
            resource_text(&json!({"contents": [{"uri": "x", "text": "t"}]})),
            Ok("t".into())
        );
        assert!(resource_text(&json!({"contents": [{"uri": "x", "blob": "AA"}]})).is_err());
    }
}
