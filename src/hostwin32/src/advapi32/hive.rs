//! The registry tree: keys with case-insensitive names, sorted subkeys, values in the
//! order they were first set (as Windows enumerates them), classes, last-write times
//! and the volatile flag (volatile keys are never saved).
//!
//! Three real roots exist: HKEY_LOCAL_MACHINE, HKEY_USERS and HKEY_DYN_DATA (volatile,
//! as on Windows 9x where it is rebuilt at boot). The other predefined keys are
//! aliases of paths below them (see [`alias`]).
//!
//! Value data is kept as Windows NT keeps it: string values (REG_SZ, REG_EXPAND_SZ,
//! REG_MULTI_SZ) as UTF-16LE bytes, everything else as the bytes the program gave.

use std::collections::BTreeMap;

pub const REG_NONE: u32 = 0;
pub const REG_SZ: u32 = 1;
pub const REG_EXPAND_SZ: u32 = 2;
pub const REG_BINARY: u32 = 3;
pub const REG_DWORD: u32 = 4;
pub const REG_MULTI_SZ: u32 = 7;

/// Whether values of this type are text (converted between ANSI and UTF-16 by the
/// A functions).
pub fn is_string(kind: u32) -> bool {
    matches!(kind, REG_SZ | REG_EXPAND_SZ | REG_MULTI_SZ)
}

/// The case-folded form names are compared in (simple per-character upper case, as
/// the registry's own comparison does).
pub fn fold(s: &str) -> String {
    s.chars()
        .map(|c| {
            let mut up = c.to_uppercase();
            match (up.next(), up.next()) {
                (Some(u), None) => u,
                _ => c,
            }
        })
        .collect()
}

/// Index of a key in the hive. Ids are never reused, so a handle to a deleted key
/// stays recognisably deleted.
pub type NodeId = usize;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    /// Empty for the key's default value.
    pub name: String,
    pub kind: u32,
    pub data: Vec<u8>,
}

#[derive(Debug)]
pub struct Node {
    pub name: String,
    pub parent: Option<NodeId>,
    /// Subkeys by folded name; the map order is the enumeration order.
    children: BTreeMap<String, NodeId>,
    pub values: Vec<Value>,
    pub class: String,
    /// FILETIME of the last change to the key's values or subkey list.
    pub last_write: u64,
    pub volatile: bool,
}

/// The real roots of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    LocalMachine,
    Users,
    DynData,
}

impl Root {
    pub fn name(self) -> &'static str {
        match self {
            Root::LocalMachine => "HKEY_LOCAL_MACHINE",
            Root::Users => "HKEY_USERS",
            Root::DynData => "HKEY_DYN_DATA",
        }
    }

    fn index(self) -> usize {
        match self {
            Root::LocalMachine => 0,
            Root::Users => 1,
            Root::DynData => 2,
        }
    }
}

/// Where a root name (full or abbreviated, as .reg files and the predefined handles
/// use them) lives: a real root and the path below it. `nt` picks the Windows NT
/// location of HKEY_CURRENT_CONFIG.
///
/// HKEY_CURRENT_USER is `HKEY_USERS\.DEFAULT`, as on Windows 9x without user
/// profiles; HKEY_CLASSES_ROOT is `HKEY_LOCAL_MACHINE\Software\Classes`.
pub fn alias(name: &str, nt: bool) -> Option<(Root, &'static [&'static str])> {
    Some(match fold(name).as_str() {
        "HKEY_LOCAL_MACHINE" | "HKLM" => (Root::LocalMachine, &[][..]),
        "HKEY_USERS" | "HKU" => (Root::Users, &[][..]),
        "HKEY_DYN_DATA" => (Root::DynData, &[][..]),
        "HKEY_CURRENT_USER" | "HKCU" => (Root::Users, &[".DEFAULT"][..]),
        "HKEY_CLASSES_ROOT" | "HKCR" => (Root::LocalMachine, &["Software", "Classes"][..]),
        "HKEY_CURRENT_CONFIG" | "HKCC" if nt => (
            Root::LocalMachine,
            &[
                "System",
                "CurrentControlSet",
                "Hardware Profiles",
                "Current",
            ][..],
        ),
        "HKEY_CURRENT_CONFIG" | "HKCC" => (Root::LocalMachine, &["Config", "0001"][..]),
        _ => return None,
    })
}

/// Why a key path is unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError {
    /// Starts with a backslash or has an empty component inside (ERROR_BAD_PATHNAME).
    BadPathname,
}

/// The components of a subkey path. Trailing backslashes are ignored, as Windows
/// does; a leading one or an empty component inside is an error.
pub fn split_path(path: &str) -> Result<Vec<&str>, PathError> {
    let trimmed = path.trim_end_matches('\\');
    if trimmed.is_empty() {
        return if path.is_empty() {
            Ok(Vec::new())
        } else {
            Err(PathError::BadPathname)
        };
    }
    let comps: Vec<&str> = trimmed.split('\\').collect();
    if comps.iter().any(|c| c.is_empty()) {
        return Err(PathError::BadPathname);
    }
    Ok(comps)
}

pub struct Hive {
    nodes: Vec<Option<Node>>,
    roots: [NodeId; 3],
}

impl Hive {
    /// Empty roots, stamped `now` (FILETIME).
    pub fn new(now: u64) -> Hive {
        let mut h = Hive {
            nodes: Vec::new(),
            roots: [0; 3],
        };
        for r in [Root::LocalMachine, Root::Users, Root::DynData] {
            let id = h.nodes.len();
            h.nodes.push(Some(Node {
                name: r.name().to_string(),
                parent: None,
                children: BTreeMap::new(),
                values: Vec::new(),
                class: String::new(),
                last_write: now,
                volatile: r == Root::DynData,
            }));
            h.roots[r.index()] = id;
        }
        h
    }

    pub fn root(&self, r: Root) -> NodeId {
        self.roots[r.index()]
    }

    pub fn is_root(&self, id: NodeId) -> bool {
        self.roots.contains(&id)
    }

    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id).and_then(Option::as_ref)
    }

    fn node_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.nodes.get_mut(id).and_then(Option::as_mut)
    }

    pub fn exists(&self, id: NodeId) -> bool {
        self.node(id).is_some()
    }

    pub fn child(&self, id: NodeId, name: &str) -> Option<NodeId> {
        self.node(id)?.children.get(&fold(name)).copied()
    }

    /// Subkeys in enumeration order.
    pub fn children(&self, id: NodeId) -> Vec<NodeId> {
        self.node(id)
            .map(|n| n.children.values().copied().collect())
            .unwrap_or_default()
    }

    pub fn child_at(&self, id: NodeId, index: usize) -> Option<NodeId> {
        self.node(id)?.children.values().nth(index).copied()
    }

    /// The key `comps` below `from`.
    pub fn lookup(&self, from: NodeId, comps: &[&str]) -> Option<NodeId> {
        comps
            .iter()
            .try_fold(from, |at, c| self.child(at, c))
            .filter(|&id| self.exists(id))
    }

    /// Adds subkey `name` below `parent` (which must not have one of that name).
    pub fn create_child(
        &mut self,
        parent: NodeId,
        name: &str,
        class: &str,
        volatile: bool,
        now: u64,
    ) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Some(Node {
            name: name.to_string(),
            parent: Some(parent),
            children: BTreeMap::new(),
            values: Vec::new(),
            class: class.to_string(),
            last_write: now,
            volatile,
        }));
        if let Some(p) = self.node_mut(parent) {
            p.children.insert(fold(name), id);
            p.last_write = now;
        }
        id
    }

    /// The key `comps` below `from`, created (with every missing parent) if needed.
    pub fn ensure(&mut self, from: NodeId, comps: &[&str], volatile: bool, now: u64) -> NodeId {
        let mut at = from;
        for c in comps {
            at = match self.child(at, c) {
                Some(id) => id,
                None => self.create_child(at, c, "", volatile, now),
            };
        }
        at
    }

    /// Removes `id` and everything below it; returns the removed keys.
    pub fn delete(&mut self, id: NodeId, now: u64) -> Vec<NodeId> {
        let Some(node) = self.node(id) else {
            return Vec::new();
        };
        let (parent, key) = (node.parent, fold(&node.name));
        if let Some(p) = parent.and_then(|p| self.node_mut(p)) {
            p.children.remove(&key);
            p.last_write = now;
        }
        let mut gone = Vec::new();
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            if let Some(node) = self.nodes.get_mut(n).and_then(Option::take) {
                stack.extend(node.children.values().copied());
                gone.push(n);
            }
        }
        gone
    }

    pub fn value(&self, id: NodeId, name: &str) -> Option<&Value> {
        let want = fold(name);
        self.node(id)?.values.iter().find(|v| fold(&v.name) == want)
    }

    /// Sets a value; a new value goes after the existing ones, a replaced one keeps
    /// its place (and its name's spelling).
    pub fn set_value(&mut self, id: NodeId, name: &str, kind: u32, data: Vec<u8>, now: u64) {
        let want = fold(name);
        let Some(node) = self.node_mut(id) else {
            return;
        };
        node.last_write = now;
        match node.values.iter_mut().find(|v| fold(&v.name) == want) {
            Some(v) => {
                v.kind = kind;
                v.data = data;
            }
            None => node.values.push(Value {
                name: name.to_string(),
                kind,
                data,
            }),
        }
    }

    pub fn delete_value(&mut self, id: NodeId, name: &str, now: u64) -> bool {
        let want = fold(name);
        let Some(node) = self.node_mut(id) else {
            return false;
        };
        let before = node.values.len();
        node.values.retain(|v| fold(&v.name) != want);
        let removed = node.values.len() != before;
        if removed {
            node.last_write = now;
        }
        removed
    }

    /// Whether `ancestor` is `id` or above it.
    pub fn is_at_or_above(&self, ancestor: NodeId, id: NodeId) -> bool {
        let mut at = Some(id);
        while let Some(n) = at {
            if n == ancestor {
                return true;
            }
            at = self.node(n).and_then(|node| node.parent);
        }
        false
    }

    /// Whether `id` is volatile (its subkeys then are too: Windows refuses to create
    /// a stable key below a volatile one).
    pub fn is_volatile(&self, id: NodeId) -> bool {
        self.node(id).is_some_and(|n| n.volatile)
    }

    /// The full path, e.g. `HKEY_LOCAL_MACHINE\Software\Classes`.
    pub fn path(&self, id: NodeId) -> String {
        let mut parts = Vec::new();
        let mut at = Some(id);
        while let Some(n) = at {
            let Some(node) = self.node(n) else { break };
            parts.push(node.name.as_str());
            at = node.parent;
        }
        parts.reverse();
        parts.join("\\")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_insensitive_and_sorted() {
        let mut h = Hive::new(1);
        let lm = h.root(Root::LocalMachine);
        let b = h.create_child(lm, "beta", "", false, 2);
        let a = h.create_child(lm, "Alpha", "", false, 2);
        assert_eq!(h.child(lm, "ALPHA"), Some(a));
        assert_eq!(h.children(lm), vec![a, b]);
        assert_eq!(
            h.ensure(lm, &["BETA", "x", "Y"], false, 3),
            h.lookup(lm, &["beta", "X", "y"]).unwrap()
        );
        assert_eq!(
            h.path(h.lookup(lm, &["beta", "x"]).unwrap()),
            r"HKEY_LOCAL_MACHINE\beta\x"
        );
        let gone = h.delete(b, 4);
        assert_eq!(gone.len(), 3);
        assert!(!h.exists(b));
        assert_eq!(h.children(lm), vec![a]);
    }

    #[test]
    fn values_keep_first_set_order() {
        let mut h = Hive::new(1);
        let k = h.root(Root::Users);
        for n in ["A", "C", "D", "B"] {
            h.set_value(k, n, REG_DWORD, vec![0; 4], 2);
        }
        h.set_value(k, "c", REG_SZ, vec![0, 0], 3);
        let names: Vec<&str> = h
            .node(k)
            .unwrap()
            .values
            .iter()
            .map(|v| v.name.as_str())
            .collect();
        assert_eq!(names, ["A", "C", "D", "B"]);
        assert_eq!(h.value(k, "C").unwrap().kind, REG_SZ);
        assert!(h.delete_value(k, "d", 4));
        assert!(!h.delete_value(k, "d", 4));
    }

    #[test]
    fn path_rules() {
        assert_eq!(split_path(""), Ok(vec![]));
        assert_eq!(split_path(r"a\b\\"), Ok(vec!["a", "b"]));
        assert_eq!(split_path(r"\a"), Err(PathError::BadPathname));
        assert_eq!(split_path(r"a\\b"), Err(PathError::BadPathname));
        assert_eq!(split_path(r"\"), Err(PathError::BadPathname));
    }
}
