//! The requests of a push, over the puller's HTTP client so that every answer is held to the
//! same limits as a pull's (its body read at most to the error cap; the whole push within the
//! registries' deadline, which the caller holds it to): for each blob, `POST
//! /v2/<repository>/blobs/uploads/`, then `PUT` of the bytes to the upload's `Location` with
//! `?digest=`. A `Location` on another scheme, host or port is refused: the registry's
//! credentials would follow it.

use reqwest::{Method, Url};

use super::error::OciError;
use super::fetch::{Puller, Refusal};

/// Upload `blob` (its bytes and `sha256:` digest) to `repository`; `what` names it in
/// errors, `refused` turns a status into the error the person can act on.
pub(super) async fn upload(
    puller: &Puller,
    reference: &str,
    repository: &str,
    blob: (&[u8], &str),
    what: &str,
    scope: &str,
    refused: &dyn Fn(&str, &Refusal) -> OciError,
) -> Result<(), OciError> {
    let (bytes, digest) = blob;
    let unusable = |message: String| OciError::Registry {
        reference: reference.to_owned(),
        message,
    };
    let start = format!("{}/v2/{repository}/blobs/uploads/", puller.base());
    let start = Url::parse(&start).map_err(|err| unusable(format!("{start}: {err}")))?;
    let doing = format!("starting the upload of the {what}");
    let reply = puller
        .send(Method::POST, &start, None, &doing, scope)
        .await?
        .map_err(|refusal| refused(&doing, &refusal))?;
    let location = reply
        .location
        .ok_or_else(|| unusable(format!("{doing}: the registry named no upload location")))?;
    let mut url = start
        .join(&location)
        .map_err(|err| unusable(format!("{doing}: upload location {location:?}: {err}")))?;
    if url.origin() != start.origin() {
        return Err(unusable(format!(
            "{doing}: the upload location {location:?} is on another host; nothing was sent there"
        )));
    }
    url.query_pairs_mut().append_pair("digest", digest);
    let doing = format!("pushing the {what}");
    puller
        .send(
            Method::PUT,
            &url,
            Some((bytes, "application/octet-stream")),
            &doing,
            scope,
        )
        .await?
        .map_err(|refusal| refused(&doing, &refusal))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use reqwest::Url;

    #[test]
    fn an_upload_location_elsewhere_has_another_origin() {
        let start = Url::parse("http://127.0.0.1:5000/v2/a/blobs/uploads/").unwrap();
        let same = start.join("/v2/a/blobs/uploads/u1?state=x").unwrap();
        assert_eq!(same.origin(), start.origin());
        for other in [
            "http://127.0.0.1:5001/u",
            "https://127.0.0.1:5000/u",
            "http://evil.example/u",
            "//evil.example/u",
        ] {
            assert_ne!(
                start.join(other).unwrap().origin(),
                start.origin(),
                "{other}"
            );
        }
    }
}
