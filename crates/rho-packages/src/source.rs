//! Package sources as pi 1.6 writes them in settings.json: `npm:<spec>`, `git:<repo>[@ref]`
//! (or a plain `https://`, `ssh://`, `git://` URL) and anything else a local path. rho also
//! takes `git:file:///path` and `git:/path` for a repository on this machine, which pi does
//! not.

/// A parsed source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// An npm package.
    Npm(NpmSource),
    /// A git repository.
    Git(GitSource),
    /// A file or folder used where it is, never copied.
    Local(String),
}

/// `npm:<name>[@<version or range>]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpmSource {
    /// What follows `npm:`, given to `npm install`.
    pub spec: String,
    /// The package name (`@scope/name` or `name`): its folder under `node_modules`.
    pub name: String,
    /// What follows the name's `@`.
    pub version: Option<String>,
}

impl NpmSource {
    /// An exact version (`@1.2.3`): never updated.
    pub fn pinned(&self) -> bool {
        self.version
            .as_deref()
            .is_some_and(|v| node_semver::Version::parse(v).is_ok())
    }
}

/// A git repository and the ref to check out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSource {
    /// What `git clone` gets.
    pub repo: String,
    /// The host (`github.com`; `file` for a repository on this machine).
    pub host: String,
    /// The repository's path on the host, without `.git`.
    pub path: String,
    /// A tag, branch or commit after `@`; a ref pins the package.
    pub git_ref: Option<String>,
}

impl Source {
    /// Parses `source` the way pi does.
    pub fn parse(source: &str) -> Source {
        let trimmed = source.trim();
        if let Some(spec) = trimmed.strip_prefix("npm:") {
            return Source::Npm(parse_npm(spec.trim()));
        }
        if is_local(trimmed) {
            return Source::Local(source.to_string());
        }
        parse_git(trimmed).map_or_else(|| Source::Local(source.to_string()), Source::Git)
    }

    /// What makes two declarations the same package, whatever their version or ref: the npm
    /// name, the git host and path, or (given) the resolved local path.
    pub fn identity(&self, resolve_local: impl Fn(&str) -> std::path::PathBuf) -> String {
        match self {
            Source::Npm(npm) => format!("npm:{}", npm.name),
            Source::Git(git) => format!("git:{}/{}", git.host, git.path),
            Source::Local(path) => format!("local:{}", resolve_local(path).display()),
        }
    }
}

/// pi's test: every source without a known scheme prefix is a path.
fn is_local(source: &str) -> bool {
    const REMOTE: [&str; 7] = [
        "npm:", "git:", "github:", "http:", "https:", "ssh:", "builtin:",
    ];
    !REMOTE.iter().any(|p| source.starts_with(p))
}

/// `name@version`, `@scope/name@version`; a spec that does not split stays the name.
fn parse_npm(spec: &str) -> NpmSource {
    let (scope, body) = match spec.strip_prefix('@') {
        Some(body) => ("@", body),
        None => ("", spec),
    };
    let (name, version) = match body.split_once('@') {
        Some((name, version)) if !name.is_empty() && !version.is_empty() => {
            (format!("{scope}{name}"), Some(version.to_string()))
        }
        _ => (spec.to_string(), None),
    };
    NpmSource {
        spec: spec.to_string(),
        name,
        version,
    }
}

/// A git source: with `git:` any of pi's forms (`host/path`, `git@host:path`, URLs), without
/// it only explicit `https://`, `http://`, `ssh://` and `git://` URLs.
fn parse_git(source: &str) -> Option<GitSource> {
    let (prefixed, url) = match source.strip_prefix("git:") {
        Some(rest) => (true, rest.trim()),
        None => (false, source),
    };
    let lower = url.to_ascii_lowercase();
    let has_scheme = ["https://", "http://", "ssh://", "git://"]
        .iter()
        .any(|s| lower.starts_with(s));
    if !prefixed && !has_scheme {
        return None;
    }
    if prefixed && (url.starts_with("file://") || url.starts_with('/')) {
        return local_repository(url);
    }
    let (repo, git_ref) = split_ref(url);
    let (repo, host, path) = if let Some((host, path)) = scp_like(&repo) {
        (repo.clone(), host, path)
    } else if has_scheme {
        let (host, path) = url_host_path(&repo)?;
        (repo.clone(), host, path)
    } else {
        let (host, path) = repo.split_once('/')?;
        if !host.contains('.') && host != "localhost" {
            return None;
        }
        (
            format!("https://{repo}"),
            host.to_string(),
            path.to_string(),
        )
    };
    let path = path.trim_start_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path).to_string();
    if host.is_empty() || path.split('/').count() < 2 || unsafe_part(&host, false) {
        return None;
    }
    if unsafe_part(&path, true) {
        return None;
    }
    Some(GitSource {
        repo,
        host,
        path,
        git_ref,
    })
}

/// rho's own form: `git:file:///abs/repo[@ref]` or `git:/abs/repo[@ref]`, checked out under
/// the host name `file`.
fn local_repository(url: &str) -> Option<GitSource> {
    let (repo, git_ref) = split_ref(url);
    let path = repo.strip_prefix("file://").unwrap_or(&repo);
    let rel = path.trim_start_matches('/');
    let rel = rel.strip_suffix(".git").unwrap_or(rel);
    if rel.is_empty() || unsafe_part(rel, true) {
        return None;
    }
    Some(GitSource {
        repo: format!("file:///{}", path.trim_start_matches('/')),
        host: "file".into(),
        path: rel.trim_end_matches('/').to_string(),
        git_ref,
    })
}

/// Splits `@ref` (or `#ref`) off the repository part after the host, so `git@` and URL user
/// names stay.
fn split_ref(url: &str) -> (String, Option<String>) {
    let path_start = if let Some((_, rest)) = url.split_once("://") {
        let offset = url.len() - rest.len();
        offset + rest.find('/').unwrap_or(rest.len())
    } else if let Some(after) = url.strip_prefix("git@") {
        4 + after.find(':').unwrap_or(after.len())
    } else {
        url.find('/').unwrap_or(url.len())
    };
    let tail = &url[path_start..];
    match tail.find(['@', '#']) {
        Some(i) if i + 1 < tail.len() && !tail[..i].trim_matches('/').is_empty() => {
            let at = path_start + i;
            (url[..at].to_string(), Some(url[at + 1..].to_string()))
        }
        _ => (url.to_string(), None),
    }
}

/// `git@host:path` as (host, path).
fn scp_like(repo: &str) -> Option<(String, String)> {
    let rest = repo.strip_prefix("git@")?;
    let (host, path) = rest.split_once(':')?;
    Some((host.to_string(), path.to_string()))
}

/// A URL's host name (no user, no port) and path.
fn url_host_path(url: &str) -> Option<(String, String)> {
    let (_, rest) = url.split_once("://")?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = host.split(':').next().unwrap_or(host);
    Some((host.to_ascii_lowercase(), path.to_string()))
}

/// A part that could leave the install folder: `..`, a backslash, NUL, a leading `/`, or
/// a `/` where none may be.
fn unsafe_part(part: &str, allow_slash: bool) -> bool {
    part.contains('\0')
        || part.contains('\\')
        || part.starts_with('/')
        || (!allow_slash && part.contains('/'))
        || part.split('/').any(|s| s == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(source: &str) -> GitSource {
        match Source::parse(source) {
            Source::Git(g) => g,
            other => panic!("{source}: {other:?}"),
        }
    }

    #[test]
    fn npm_specs_split_name_and_version() {
        let Source::Npm(n) = Source::parse("npm:@scope/pkg@^1.2.0") else {
            panic!("npm")
        };
        assert_eq!(
            (n.name.as_str(), n.version.as_deref()),
            ("@scope/pkg", Some("^1.2.0"))
        );
        assert!(!n.pinned());
        let Source::Npm(n) = Source::parse("npm:pkg@1.2.3") else {
            panic!("npm")
        };
        assert!(n.pinned());
        let Source::Npm(n) = Source::parse("npm:fixture@file:/tmp/x/fixture-1.0.0.tgz") else {
            panic!("npm")
        };
        assert_eq!(n.name, "fixture");
        assert_eq!(n.spec, "fixture@file:/tmp/x/fixture-1.0.0.tgz");
        let Source::Npm(n) = Source::parse("npm:@scope/pkg") else {
            panic!("npm")
        };
        assert_eq!((n.name.as_str(), n.version), ("@scope/pkg", None));
    }

    #[test]
    fn git_sources_in_pis_forms() {
        let g = git("git:github.com/user/repo@v1");
        assert_eq!(
            (g.repo.as_str(), g.host.as_str(), g.path.as_str()),
            ("https://github.com/user/repo", "github.com", "user/repo")
        );
        assert_eq!(g.git_ref.as_deref(), Some("v1"));
        let g = git("git:git@github.com:user/repo.git");
        assert_eq!(g.repo, "git@github.com:user/repo.git");
        assert_eq!(
            (g.host.as_str(), g.path.as_str()),
            ("github.com", "user/repo")
        );
        let g = git("https://gitlab.com/group/sub/repo");
        assert_eq!(g.path, "group/sub/repo");
        assert_eq!(g.git_ref, None);
        let g = git("ssh://git@example.com:2222/user/repo@main");
        assert_eq!(g.repo, "ssh://git@example.com:2222/user/repo");
        assert_eq!(
            (g.host.as_str(), g.git_ref.as_deref()),
            ("example.com", Some("main"))
        );
        assert_eq!(
            Source::parse("git:github.com/user/repo").identity(|_| unreachable!()),
            Source::parse("git:git@github.com:user/repo@v2").identity(|_| unreachable!()),
        );
    }

    #[test]
    fn a_local_repository_is_rhos_addition() {
        let g = git("git:file:///tmp/pkgs/repo.git@v1");
        assert_eq!(
            (g.repo.as_str(), g.host.as_str(), g.path.as_str()),
            ("file:///tmp/pkgs/repo.git", "file", "tmp/pkgs/repo")
        );
        assert_eq!(g.git_ref.as_deref(), Some("v1"));
        assert_eq!(git("git:/tmp/pkgs/repo").repo, "file:///tmp/pkgs/repo");
    }

    #[test]
    fn everything_else_is_a_path_and_unsafe_repositories_are_refused() {
        for source in ["./pkg", "/abs/pkg", "~/pkg", "pkg", "github:user/repo"] {
            assert!(
                matches!(Source::parse(source), Source::Local(_)),
                "{source}"
            );
        }
        for bad in [
            "git:github.com/../../etc",
            "git:nohost/user/repo",
            "git:github.com/only",
            "git:file:///tmp/../etc",
        ] {
            assert!(matches!(Source::parse(bad), Source::Local(_)), "{bad}");
        }
    }
}
