//! An editor's prompt (ACP content blocks) as the text warden's turn reads: text as typed, and
//! every `resource_link` or embedded `resource` that names a file as an `@"path"` reference, so
//! that it is read through the configured resolver with the chat's caps, deny globs and
//! placement (a path inside the workspace is written relative to it; one outside stays
//! absolute, and the resolver refuses it as it refuses any). An embedded resource's own text is
//! not used for a file: the resolver reads the file as saved. An embedded text resource that
//! is no file (an editor's untitled buffer, a selection) is placed in the prompt as a fenced
//! block, named by its URI. Images and audio are refused (warden does not advertise them).

use std::path::Path;

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};

use crate::domain::file_uri;

/// The prompt text for `blocks` of a session of workspace `root`.
pub(crate) fn prompt_text(blocks: &[ContentBlock], root: &Path) -> Result<String, String> {
    let mut text = String::new();
    for block in blocks {
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            ContentBlock::ResourceLink(link) => push_mention(&mut text, &link.uri, root),
            ContentBlock::Resource(embedded) => match &embedded.resource {
                EmbeddedResourceResource::TextResourceContents(resource) => {
                    if file_uri::path(&resource.uri).is_some() {
                        push_mention(&mut text, &resource.uri, root);
                    } else {
                        let fence = fence_for(&resource.text);
                        text.push_str(&format!(
                            "\n{} (from the editor):\n{fence}\n{}\n{fence}\n",
                            resource.uri, resource.text
                        ));
                    }
                }
                EmbeddedResourceResource::BlobResourceContents(resource) => {
                    if file_uri::path(&resource.uri).is_some() {
                        push_mention(&mut text, &resource.uri, root);
                    } else {
                        return Err(format!(
                            "a binary resource that is no file ({}) cannot be attached",
                            resource.uri
                        ));
                    }
                }
                _ => return Err("an embedded resource of an unknown kind".into()),
            },
            ContentBlock::Image(_) => {
                return Err(
                    "images are not supported (the prompt capability `image` is off)".into(),
                );
            }
            ContentBlock::Audio(_) => {
                return Err("audio is not supported (the prompt capability `audio` is off)".into());
            }
            _ => return Err("a content block of an unknown kind".into()),
        }
    }
    Ok(text)
}

/// ` @"path" ` for a file URI (relative to `root` when inside it), else the URI itself.
fn push_mention(text: &mut String, uri: &str, root: &Path) {
    if !text.is_empty() && !text.ends_with(char::is_whitespace) {
        text.push(' ');
    }
    match file_uri::path(uri) {
        Some(path) => {
            let path = Path::new(&path);
            let shown = path
                .strip_prefix(root)
                .ok()
                .filter(|rel| !rel.as_os_str().is_empty())
                .unwrap_or(path)
                .to_string_lossy()
                .into_owned();
            text.push_str(&format!(
                "@\"{}\"",
                shown.replace('\\', "\\\\").replace('"', "\\\"")
            ));
        }
        None => text.push_str(uri),
    }
    text.push(' ');
}

/// A run of backticks longer than any in `text`.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{EmbeddedResource, ResourceLink, TextResourceContents};
    use proptest::prelude::*;

    fn root() -> &'static Path {
        Path::new("/work/proj")
    }

    #[test]
    fn links_and_embedded_files_become_quoted_references_relative_to_the_workspace() {
        let blocks = vec![
            ContentBlock::from("look at"),
            ContentBlock::ResourceLink(ResourceLink::new(
                "main.rs",
                "file:///work/proj/src/my%20main.rs",
            )),
            ContentBlock::from("and"),
            ContentBlock::Resource(EmbeddedResource::new(
                EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                    "unsaved text is not used",
                    "file:///etc/passwd",
                )),
            )),
        ];
        let text = prompt_text(&blocks, root()).unwrap_or_default();
        assert_eq!(text, "look at @\"src/my main.rs\" and @\"/etc/passwd\" ");
        let parsed = crate::fileref::parse(&text).segments;
        let paths: Vec<String> = parsed
            .iter()
            .filter_map(|s| match s {
                crate::domain::Segment::FileRef { path, .. } => Some(path.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(paths, ["src/my main.rs", "/etc/passwd"]);
    }

    #[test]
    fn a_buffer_that_is_no_file_is_fenced_and_images_are_refused() {
        let blocks = vec![ContentBlock::Resource(EmbeddedResource::new(
            EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                "a ``` b",
                "untitled:1",
            )),
        ))];
        let text = prompt_text(&blocks, root()).unwrap_or_default();
        assert!(text.contains("````\na ``` b\n````"), "{text}");
        let image = ContentBlock::Image(agent_client_protocol::v1::schema::ImageContent::new(
            "AAAA",
            "image/png",
        ));
        assert!(prompt_text(&[image], root()).is_err());
    }

    proptest! {
        #[test]
        fn any_file_name_comes_back_from_its_reference(name in "[^\\x00/]{1,40}") {
            // `.` and `..` name directories, not files.
            prop_assume!(name != "." && name != "..");
            let mut uri = String::from("file:///work/proj/");
            for byte in name.as_bytes() {
                uri.push_str(&format!("%{byte:02X}"));
            }
            let text = prompt_text(&[ContentBlock::ResourceLink(ResourceLink::new("f", uri))], root())
                .unwrap_or_default();
            let paths: Vec<String> = crate::fileref::parse(&text)
                .segments
                .iter()
                .filter_map(|s| match s {
                    crate::domain::Segment::FileRef { path, .. } => Some(path.clone()),
                    _ => None,
                })
                .collect();
            prop_assert_eq!(paths, vec![name]);
        }
    }
}
