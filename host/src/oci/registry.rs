//! Talking to a registry: push a component artifact, resolve a tag or digest to its manifest
//! and fetch its layer (through `fetch`, which holds every response to a size cap, an idle
//! timeout and a deadline). HTTPS, except to a registry on this machine
//! (plain HTTP); every failure is mapped to an [`OciError`] naming the registry or
//! reference.

use reqwest::{Method, Url};

use super::artifact::{
    ACCEPTED_MANIFESTS, Descriptor, Manifest, OCI_MANIFEST_MEDIA_TYPE, digest_of,
};
use super::auth::Credentials;
use super::error::OciError;
use super::fetch::{Limits, MANIFEST_MAX_BYTES, Puller, Refusal};
use super::push::upload;
use crate::config::OciReference;

/// How the registry is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// TLS, the only choice for a registry elsewhere.
    Https,
    /// Plain HTTP, only for a registry on this machine.
    Http,
}

impl Transport {
    /// The transport for `reference`: plain HTTP for a loopback registry, HTTPS otherwise;
    /// `plain_http` asked for a registry elsewhere is refused here, before any connection.
    pub fn for_reference(reference: &OciReference, plain_http: bool) -> Result<Self, OciError> {
        if reference.is_loopback() {
            Ok(Self::Http)
        } else if plain_http {
            Err(OciError::PlainHttpRefused {
                registry: reference.registry.clone(),
            })
        } else {
            Ok(Self::Https)
        }
    }
}

/// A manifest resolved from a tag or digest.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// `sha256:…` of the manifest bytes.
    pub manifest_digest: String,
    /// The manifest.
    pub manifest: Manifest,
    /// Its one wasm layer.
    pub layer: Descriptor,
}

/// A client for one registry.
pub struct Registry {
    puller: Puller,
    credentials: Credentials,
    registry: String,
}

impl Registry {
    /// A client for the registry of `reference`, over `transport`, sending `credentials`,
    /// each request held to `limits`.
    pub fn new(
        reference: &OciReference,
        transport: Transport,
        credentials: Credentials,
        limits: Limits,
    ) -> Result<Self, OciError> {
        // reqwest is built without a TLS provider of its own: the process uses ring.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let scheme = match transport {
            Transport::Https => "https",
            Transport::Http => "http",
        };
        let puller = Puller::new(
            &reference.registry,
            format!("{scheme}://{}", reference.registry),
            reference.is_loopback(),
            credentials.clone(),
            limits,
        )?;
        Ok(Self {
            puller,
            credentials,
            registry: reference.registry.clone(),
        })
    }

    /// Push `component` with `config` and `manifest` under `reference`'s tag; returns the
    /// manifest's digest.
    pub async fn push(
        &self,
        reference: &OciReference,
        component: &[u8],
        config: &[u8],
        manifest: &Manifest,
    ) -> Result<String, OciError> {
        let deadline = self.puller.limits().deadline;
        tokio::time::timeout(
            deadline,
            self.push_within(reference, component, config, manifest),
        )
        .await
        .map_err(|_| OciError::Deadline {
            registry: self.registry.clone(),
            what: format!("pushing {reference}"),
            seconds: deadline.as_secs(),
        })?
    }

    async fn push_within(
        &self,
        reference: &OciReference,
        component: &[u8],
        config: &[u8],
        manifest: &Manifest,
    ) -> Result<String, OciError> {
        let name = reference.to_string();
        let scope = format!("repository:{}:pull,push", reference.repository);
        let body = serde_json::to_vec(manifest).map_err(|err| OciError::Registry {
            reference: name.clone(),
            message: err.to_string(),
        })?;
        let refused = |doing: &str, refusal: &Refusal| self.refused(&name, doing, refusal);
        for (bytes, what) in [(component, "component layer"), (config, "config")] {
            upload(
                &self.puller,
                &name,
                &reference.repository,
                (bytes, &digest_of(bytes)),
                what,
                &scope,
                &refused,
            )
            .await?;
        }
        let tag = reference.tag.as_deref().unwrap_or("latest");
        let url = format!(
            "{}/v2/{}/manifests/{tag}",
            self.puller.base(),
            reference.repository
        );
        let url = Url::parse(&url).map_err(|err| OciError::Registry {
            reference: name.clone(),
            message: format!("{url}: {err}"),
        })?;
        let what = format!("the manifest of {name}");
        self.puller
            .send(
                Method::PUT,
                &url,
                Some((&body, OCI_MANIFEST_MEDIA_TYPE)),
                &what,
                &scope,
            )
            .await?
            .map_err(|refusal| refused("pushing the manifest", &refusal))?;
        Ok(digest_of(&body))
    }

    /// The manifest `reference` names (by digest when it carries one, else by tag), checked
    /// to be a wasm component artifact and, for a digest, to hash to it.
    pub async fn resolve(&self, reference: &OciReference) -> Result<Resolved, OciError> {
        let name = reference.to_string();
        let at = match (&reference.digest, &reference.tag) {
            (Some(digest), _) => digest.clone(),
            (None, Some(tag)) => tag.clone(),
            (None, None) => "latest".to_owned(),
        };
        let what = format!("the manifest of {name}");
        let answer = self
            .puller
            .get(
                &format!("{}/manifests/{at}", reference.repository),
                &ACCEPTED_MANIFESTS.join(", "),
                &what,
                &self.scope(reference),
                MANIFEST_MAX_BYTES,
                &mut |_| {},
            )
            .await?
            .map_err(|refusal| self.refused(&name, "fetching the manifest", &refusal))?;
        let bytes = answer.body;
        let manifest_digest = digest_of(&bytes);
        if let Some(expected) = &reference.digest
            && *expected != manifest_digest
        {
            return Err(OciError::DigestMismatch {
                what: format!("{name}: manifest"),
                expected: expected.clone(),
                actual: manifest_digest,
            });
        }
        let (manifest, layer) = Manifest::parse_wasm(&name, &bytes)?;
        Ok(Resolved {
            manifest_digest,
            manifest,
            layer,
        })
    }

    /// The bytes of `layer` of `reference`, at most its declared size (itself at most `max`),
    /// checked against its digest.
    /// `started` is told the size once the download begins.
    pub async fn fetch_layer(
        &self,
        reference: &OciReference,
        layer: &Descriptor,
        max: u64,
        started: &mut dyn FnMut(u64),
    ) -> Result<Vec<u8>, OciError> {
        let name = reference.to_string();
        let too_large = |size: u64| OciError::TooLarge {
            reference: name.clone(),
            size,
            max,
        };
        if layer.size > max {
            return Err(too_large(layer.size));
        }
        // No more than the manifest declares: more bytes could only fail the digest.
        let what = format!(
            "the component layer of {name} (declared {} bytes)",
            layer.size
        );
        let answer = self
            .puller
            .get(
                &format!("{}/blobs/{}", reference.repository, layer.digest),
                "*/*",
                &what,
                &self.scope(reference),
                layer.size,
                started,
            )
            .await?
            .map_err(|refusal| self.refused(&name, "fetching the component layer", &refusal))?;
        let bytes = answer.body;
        let actual = digest_of(&bytes);
        if actual != layer.digest {
            return Err(OciError::DigestMismatch {
                what: format!("{name}: component layer"),
                expected: layer.digest.clone(),
                actual,
            });
        }
        Ok(bytes)
    }

    /// The token scope for pulling `reference`.
    fn scope(&self, reference: &OciReference) -> String {
        format!("repository:{}:pull", reference.repository)
    }

    /// A status other than 2xx from `doing` for `reference`, as the error the person can act
    /// on.
    fn refused(&self, reference: &str, doing: &str, refusal: &Refusal) -> OciError {
        let denied = |status: &str| OciError::Denied {
            registry: self.registry.clone(),
            reference: reference.to_owned(),
            status: status.to_owned(),
            credentials: self.credentials.describe(),
        };
        let has = |code: &str| refusal.codes.iter().any(|c| c == code);
        match refusal.status.as_u16() {
            401 => denied("401 Unauthorized"),
            403 => denied("403 Forbidden"),
            404 => OciError::NotFound {
                reference: reference.to_owned(),
            },
            _ if has("UNAUTHORIZED") => denied("401 Unauthorized"),
            _ if has("DENIED") => denied("403 Forbidden"),
            _ if has("MANIFEST_UNKNOWN") || has("NAME_UNKNOWN") || has("BLOB_UNKNOWN") => {
                OciError::NotFound {
                    reference: reference.to_owned(),
                }
            }
            _ => OciError::Registry {
                reference: reference.to_owned(),
                message: format!(
                    "{doing}: the registry answered {}{}",
                    refusal.status,
                    if refusal.codes.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", refusal.codes.join(", "))
                    }
                ),
            },
        }
    }
}

/// An error and its causes, joined (`error sending request: … Connection refused`).
pub(super) fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}
