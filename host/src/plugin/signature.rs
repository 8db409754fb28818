//! Plugin signatures embedded in the component: an Ed25519 signature in a `signature` custom
//! section at the start of the file, over the sha256 of everything after it (the format of
//! `wasmsign2`, whose crate does the encoding). A signed file stays signed through copies and
//! registries; any change to the bytes after the section (one byte anywhere) breaks it.
//!
//! Keys are one line of text: `ed25519:BASE64` (the 32-byte public key) in `*.pub`,
//! `ed25519-secret:BASE64` (the 64-byte secret key) in the secret key file. A public key file
//! may also be PEM, or the raw bytes `wasmsign2` writes.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmsign2::reexports::ct_codecs::{Base64, Decoder, Encoder};
use wasmsign2::{
    KeyPair, Module, PublicKey, PublicKeySet, SecretKey, Section, SectionLike, WSError,
};

/// Prefix of an inline public key (and of the line in a `.pub` file).
pub const PUBLIC_PREFIX: &str = "ed25519:";
/// Prefix of the line in a secret key file.
const SECRET_PREFIX: &str = "ed25519-secret:";
/// Name of the custom section that carries the signature.
pub const SIGNATURE_SECTION: &str = "signature";

/// A public key warden trusts, with where it was named.
#[derive(Debug, Clone)]
pub struct TrustedKey {
    key: PublicKey,
    /// The key file, or `inline` for a key written in the configuration.
    pub origin: String,
}

impl TrustedKey {
    /// Short hex fingerprint of the key (the first 8 bytes of the sha256 of its 32 bytes).
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.key)
    }
}

fn fingerprint(key: &PublicKey) -> String {
    hex::encode(&Sha256::digest(key.pk.as_ref())[..8])
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey").finish_non_exhaustive()
    }
}

/// A secret key, read from its file.
pub struct SigningKey {
    secret: SecretKey,
    public: PublicKey,
}

impl SigningKey {
    /// Fingerprint of the matching public key.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.public)
    }
}

/// A new key pair as the text of its two files: (secret, public).
pub fn generate_key_pair() -> (String, String) {
    let pair = KeyPair::generate();
    let secret = format!("{SECRET_PREFIX}{}\n", encode(pair.sk.sk.as_ref()),);
    let public = format!("{PUBLIC_PREFIX}{}\n", encode(pair.pk.pk.as_ref()));
    (secret, public)
}

fn encode(bytes: &[u8]) -> String {
    Base64::encode_to_string(bytes).unwrap_or_default()
}

fn decode(text: &str) -> Result<Vec<u8>, String> {
    Base64::decode_to_vec(text.trim(), None).map_err(|_| "not valid base64".to_owned())
}

/// Parse a public key: `ed25519:BASE64`, PEM, or `wasmsign2`'s raw bytes.
pub fn parse_public_key(bytes: &[u8]) -> Result<PublicKey, String> {
    let text = std::str::from_utf8(bytes).unwrap_or("").trim();
    if let Some(b64) = text.strip_prefix(PUBLIC_PREFIX) {
        let raw = decode(b64)?;
        if raw.len() != 32 {
            return Err(format!(
                "an Ed25519 public key is 32 bytes, this one is {}",
                raw.len()
            ));
        }
        let mut tagged = vec![0x01];
        tagged.extend_from_slice(&raw);
        return PublicKey::from_bytes(&tagged).map_err(|e| e.to_string());
    }
    if text.starts_with("-----BEGIN") {
        return PublicKey::from_pem(text).map_err(|e| e.to_string());
    }
    PublicKey::from_bytes(bytes).map_err(|_| {
        format!("not a public key (expected one line `{PUBLIC_PREFIX}BASE64`, PEM, or wasmsign2's raw key)")
    })
}

/// Parse a secret key file's text.
pub fn parse_secret_key(bytes: &[u8]) -> Result<SigningKey, String> {
    let text = std::str::from_utf8(bytes).unwrap_or("").trim();
    let secret = if let Some(b64) = text.strip_prefix(SECRET_PREFIX) {
        let raw = decode(b64)?;
        let mut tagged = vec![0x81];
        tagged.extend_from_slice(&raw);
        SecretKey::from_bytes(&tagged).map_err(|e| format!("not an Ed25519 secret key: {e}"))?
    } else if text.starts_with("-----BEGIN") {
        SecretKey::from_pem(text).map_err(|e| e.to_string())?
    } else if text.starts_with(PUBLIC_PREFIX) {
        return Err("this is a public key; signing needs the secret key file".into());
    } else {
        SecretKey::from_bytes(bytes)
            .map_err(|_| format!("not a secret key (expected one line `{SECRET_PREFIX}BASE64`)"))?
    };
    let public = PublicKey {
        pk: secret.sk.public_key(),
        key_id: None,
    };
    Ok(SigningKey { secret, public })
}

/// Read the public key named by `entry`: inline `ed25519:BASE64`, or a key file.
pub fn trusted_key(entry: &str) -> Result<TrustedKey, String> {
    if entry.trim().starts_with(PUBLIC_PREFIX) {
        let key = parse_public_key(entry.as_bytes())?;
        return Ok(TrustedKey {
            key,
            origin: "inline".into(),
        });
    }
    let path = Path::new(entry);
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let key = parse_public_key(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(TrustedKey {
        key,
        origin: path.display().to_string(),
    })
}

/// The component `bytes` signed with `key` (an earlier signature is replaced).
pub fn sign(bytes: &[u8], key: &SigningKey) -> Result<Vec<u8>, String> {
    let module = Module::deserialize(&mut Cursor::new(bytes)).map_err(describe)?;
    let key_id = Sha256::digest(key.public.pk.as_ref())[..8].to_vec();
    let signed = key.secret.sign(module, Some(&key_id)).map_err(describe)?;
    let mut out = Vec::with_capacity(bytes.len() + 128);
    signed.serialize(&mut out).map_err(describe)?;
    Ok(out)
}

/// A detached Ed25519 signature of `message` (not a component) with `key`, base64.
pub fn sign_message(message: &[u8], key: &SigningKey) -> String {
    encode(key.secret.sk.sign(message, None).as_ref())
}

/// Whether `signature` (base64, from [`sign_message`]) is `key`'s over `message`.
pub fn verify_message(message: &[u8], signature: &str, key: &TrustedKey) -> bool {
    decode(signature)
        .ok()
        .and_then(|raw| ed25519_compact::Signature::from_slice(&raw).ok())
        .is_some_and(|sig| key.key.pk.verify(message, &sig).is_ok())
}

/// Whether `bytes` start with a signature section, and the bytes without it.
pub fn strip(bytes: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut module = Module::deserialize(&mut Cursor::new(bytes)).map_err(describe)?;
    let before = module.sections.len();
    module.sections.retain(|s| !s.is_signature_header());
    if module.sections.len() == before {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(bytes.len());
    module.serialize(&mut out).map_err(describe)?;
    Ok(Some(out))
}

fn describe(err: WSError) -> String {
    match err {
        WSError::UnsupportedModuleType | WSError::Eof | WSError::ParseError => {
            "not a WebAssembly component or module".into()
        }
        other => other.to_string(),
    }
}

/// Why a file's signature was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unverified {
    /// No signature section.
    Unsigned,
    /// The bytes changed after they were signed.
    Tampered,
    /// Signed, but not by any of the keys (the signing key's fingerprint, when recorded).
    OtherKey(Option<String>),
    /// The file or its signature section cannot be read.
    Malformed(String),
}

impl std::fmt::Display for Unverified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unsigned => f.write_str("unsigned (no `signature` section)"),
            Self::Tampered => f.write_str(
                "tampered: its bytes changed after it was signed (the signature no longer matches)",
            ),
            Self::OtherKey(Some(id)) => write!(
                f,
                "signed by another key (fingerprint {id}), not by a trusted key"
            ),
            Self::OtherKey(None) => f.write_str("signed, but not by a trusted key"),
            Self::Malformed(why) => write!(f, "signature unreadable: {why}"),
        }
    }
}

/// The key of `keys` that signed `bytes`, or why none did.
pub fn verify<'k>(bytes: &[u8], keys: &'k [TrustedKey]) -> Result<&'k TrustedKey, Unverified> {
    let (header, rest_at) = signature_header(bytes)?;
    let Some(header) = header else {
        return Err(Unverified::Unsigned);
    };
    let set = PublicKeySet::new(keys.iter().map(|k| k.key.clone()).collect());
    match set.verify(&mut Cursor::new(bytes), None) {
        Ok(found) => {
            if let Some(key) = keys.iter().find(|k| found.contains(&k.key)) {
                check_section(&header, key)?;
                return Ok(key);
            }
        }
        Err(WSError::NoSignatures) => return Err(Unverified::Unsigned),
        Err(WSError::VerificationFailed) => {}
        Err(other) => return Err(Unverified::Malformed(describe(other))),
    }
    // Not verified: tell a change to the content from a signature by another key.
    let data = header
        .signature_data()
        .map_err(|e| Unverified::Malformed(describe(e)))?;
    let digest = Sha256::digest(&bytes[rest_at..]).to_vec();
    let intact = data
        .signed_hashes_set
        .iter()
        .any(|set| set.hashes.contains(&digest));
    if !intact {
        return Err(Unverified::Tampered);
    }
    let id = data
        .signed_hashes_set
        .iter()
        .flat_map(|set| &set.signatures)
        .find_map(|sig| sig.key_id.as_ref().map(hex::encode));
    Err(Unverified::OtherKey(id))
}

/// `Some` when `bytes` carry a signature section: the signing key's fingerprint, when recorded.
/// Nothing is verified.
pub fn signed_by(bytes: &[u8]) -> Option<Option<String>> {
    let (header, _) = signature_header(bytes).ok()?;
    let data = header?.signature_data().ok()?;
    Some(
        data.signed_hashes_set
            .iter()
            .flat_map(|set| &set.signatures)
            .find_map(|sig| sig.key_id.as_ref().map(hex::encode)),
    )
}

/// The parts of a verified signature section the signature does not cover must still be
/// exactly what signing wrote: its bytes re-encode to themselves (nothing added, nothing
/// skipped) and a recorded key id is the id of the key that verified.
fn check_section(header: &wasmsign2::CustomSection, key: &TrustedKey) -> Result<(), Unverified> {
    let data = header
        .signature_data()
        .map_err(|e| Unverified::Malformed(describe(e)))?;
    if data.serialize().ok().as_deref() != Some(header.payload()) {
        return Err(Unverified::Malformed(
            "the signature section holds bytes that are not part of a signature".into(),
        ));
    }
    let id = &Sha256::digest(key.key.pk.as_ref())[..8];
    let named = data
        .signed_hashes_set
        .iter()
        .flat_map(|set| &set.signatures)
        .any(|sig| sig.key_id.as_deref().is_none_or(|k| k == id));
    if !named {
        return Err(Unverified::Malformed(
            "the key id recorded with the signature is not the id of the key that made it".into(),
        ));
    }
    Ok(())
}

type Header = Option<wasmsign2::CustomSection>;

/// The signature section, if the first section is one, and where the signed bytes start.
fn signature_header(bytes: &[u8]) -> Result<(Header, usize), Unverified> {
    let mut cursor = Cursor::new(bytes);
    let first = {
        let stream = Module::init_from_reader(&mut cursor)
            .map_err(|e| Unverified::Malformed(describe(e)))?;
        let mut sections =
            Module::iterate(stream).map_err(|e| Unverified::Malformed(describe(e)))?;
        sections.next()
    };
    let at = usize::try_from(cursor.position()).unwrap_or(bytes.len());
    match first {
        Some(Ok(Section::Custom(custom))) if custom.is_signature_header() => Ok((Some(custom), at)),
        Some(Ok(_)) | None => Ok((None, at)),
        Some(Err(e)) => Err(Unverified::Malformed(describe(e))),
    }
}

/// What load-time enforcement needs: `policy.require_signed` with the keys of
/// `policy.trusted_keys`, from the managed file.
#[derive(Debug, Clone)]
pub struct SigningPolicy {
    keys: Vec<TrustedKey>,
    managed_file: PathBuf,
}

impl SigningPolicy {
    /// The policy in force under `policy`, if it requires signatures; an unreadable trusted key
    /// is an error naming the managed file.
    pub fn from_config(
        policy: &crate::config::PolicyConfig,
    ) -> Result<Option<Self>, super::error::PluginError> {
        if !policy.require_signed {
            return Ok(None);
        }
        let managed_file = policy
            .signing_from
            .clone()
            .unwrap_or_else(|| PathBuf::from("(managed policy)"));
        let keys = trusted_keys(policy).map_err(|reason| super::error::PluginError::Refused {
            what: managed_file.display().to_string(),
            reason: format!("`policy.trusted_keys`: {reason}"),
        })?;
        Ok(Some(Self { keys, managed_file }))
    }

    /// Refuse `bytes` (plugin `name`, read from `path`) unless a trusted key signed them.
    pub fn check(
        &self,
        name: &str,
        path: &Path,
        bytes: &[u8],
    ) -> Result<(), super::error::PluginError> {
        self.check_described(&format!("plugin {name}"), path, bytes)
    }

    /// [`SigningPolicy::check`] for a component `what` names whole (`resolver`,
    /// `…/config.toml: plugin kw`): the refusal starts `what (path): `.
    pub fn check_described(
        &self,
        what: &str,
        path: &Path,
        bytes: &[u8],
    ) -> Result<(), super::error::PluginError> {
        let why = match verify(bytes, &self.keys) {
            Ok(_) => return Ok(()),
            Err(why) => why,
        };
        let rule = match why {
            Unverified::Unsigned => "`policy.require_signed`",
            _ => "`policy.require_signed` with `policy.trusted_keys`",
        };
        let empty = if self.keys.is_empty() {
            " (`policy.trusted_keys` is empty: no key is trusted)"
        } else {
            ""
        };
        Err(super::error::PluginError::Refused {
            what: format!("{what} ({})", path.display()),
            reason: format!(
                "refused by managed policy {rule} in {}: {why}{empty}",
                self.managed_file.display()
            ),
        })
    }

    /// The trusted keys' fingerprints and origins, for `doctor`.
    pub fn keys(&self) -> &[TrustedKey] {
        &self.keys
    }
}

/// Under the signature policy in force (`policy`, the engine's), refuse `bytes` of plugin
/// `name` (from `path`) unless a trusted key signed them.
pub(crate) fn enforce(
    policy: Option<&SigningPolicy>,
    name: &str,
    path: &Path,
    bytes: &[u8],
) -> Result<(), super::error::PluginError> {
    match policy {
        Some(policy) => policy.check(name, path, bytes),
        None => Ok(()),
    }
}

/// The keys of `policy.trusted_keys`.
pub fn trusted_keys(policy: &crate::config::PolicyConfig) -> Result<Vec<TrustedKey>, String> {
    policy.trusted_keys.iter().map(|k| trusted_key(k)).collect()
}

#[cfg(test)]
#[path = "signature_tests.rs"]
mod tests;
