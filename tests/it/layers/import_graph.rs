//! `src/` read as a file graph: `syn` collects paths, they resolve to files, Tarjan finds circles.

use super::*;
use syn::visit::Visit;

/// Walks one file's items, module by module, collecting imports and names.
struct Collector<'a> {
    krate: &'a mut BTreeMap<Vec<String>, Module>,
    file: usize,
    stack: Vec<Vec<String>>,
}

impl Collector<'_> {
    fn here(&mut self) -> &mut Module {
        let path = self.stack.last().unwrap().clone();
        let file = self.file;
        self.krate.entry(path).or_insert_with(|| Module {
            file,
            ..Module::default()
        })
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let mut full = prefix.clone();
                let alias = if name == "self" {
                    prefix.last().cloned().unwrap_or_default()
                } else {
                    full.push(name.clone());
                    name
                };
                self.here().names.push(full.clone());
                self.here().imports.insert(alias, full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                self.here().names.push(full.clone());
                self.here().imports.insert(r.rename.to_string(), full);
            }
            syn::UseTree::Glob(_) => self.here().names.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.use_tree(prefix, item);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_some() {
            let test = self.here().test
                || item.attrs.iter().any(|a| {
                    a.path().is_ident("cfg")
                        && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
                });
            let mut path = self.stack.last().unwrap().clone();
            path.push(item.ident.to_string());
            self.stack.push(path);
            self.here().test = test;
            syn::visit::visit_item_mod(self, item);
            self.stack.pop();
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        // A re-export is not a dependency of the module that makes it:
        // whoever names the item through it is resolved to the file that
        // defines it. It still counts for resolving those names.
        let before = self.here().names.len();
        self.use_tree(&mut Vec::new(), &item.tree);
        if !matches!(item.vis, syn::Visibility::Inherited) {
            self.here().names.truncate(before);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        // A one-word path is a local name or something a `use` brought in,
        // which that `use` already counted.
        if path.segments.len() > 1 {
            let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.here().names.push(segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Macro arguments are tokens, not syntax: pick out `crate::a::b`
        // and `super::a` chains from them.
        let mut tokens = Vec::new();
        flatten(mac.tokens.clone(), &mut tokens);
        let mut i = 0;
        while i < tokens.len() {
            if tokens[i] == "crate" || tokens[i] == "super" {
                let mut chain = vec![tokens[i].clone()];
                let mut j = i + 1;
                while j + 2 < tokens.len() + 1
                    && tokens.get(j).map(String::as_str) == Some(":")
                    && tokens.get(j + 1).map(String::as_str) == Some(":")
                    && tokens.get(j + 2).is_some()
                {
                    chain.push(tokens[j + 2].clone());
                    j += 3;
                }
                if chain.len() > 1 {
                    self.here().names.push(chain);
                }
                i = j;
            } else {
                i += 1;
            }
        }
        syn::visit::visit_macro(self, mac);
    }
}

fn flatten(stream: proc_macro2::TokenStream, out: &mut Vec<String>) {
    for tree in stream {
        match tree {
            proc_macro2::TokenTree::Group(g) => flatten(g.stream(), out),
            proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
            proc_macro2::TokenTree::Punct(p) => out.push(p.as_char().to_string()),
            proc_macro2::TokenTree::Literal(_) => out.push(String::new()),
        }
    }
}

impl Crate {
    pub(super) fn read(src: &Path) -> Crate {
        let mut paths = Vec::new();
        rust_files(src, &mut paths);
        paths.sort();
        let mut modules = BTreeMap::new();
        for (file, path) in paths.iter().enumerate() {
            let text = std::fs::read_to_string(path).unwrap();
            let syntax = syn::parse_file(&text)
                .unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
            let relative = path.strip_prefix(src).unwrap();
            let mut collector = Collector {
                krate: &mut modules,
                file,
                stack: vec![module_path_of(relative)],
            };
            collector.here();
            collector.visit_file(&syntax);
        }
        let files = paths
            .iter()
            .map(|p| p.strip_prefix(src.parent().unwrap()).unwrap().to_owned())
            .collect();
        Crate { files, modules }
    }

    /// The absolute module path a path named inside `from` starts at, or
    /// `None` for a path outside the crate (another crate, a local item).
    fn absolute(&self, from: &[String], path: &[String]) -> Option<Vec<String>> {
        let (first, rest) = path.split_first()?;
        let mut base: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => from.to_vec(),
            "super" => {
                let mut up = from.to_vec();
                up.pop()?;
                let mut rest = rest;
                while rest.first().map(String::as_str) == Some("super") {
                    up.pop()?;
                    rest = &rest[1..];
                }
                up.extend(rest.iter().cloned());
                return Some(up);
            }
            name => {
                let child: Vec<String> = from.iter().cloned().chain([name.to_owned()]).collect();
                if self.modules.contains_key(&child) {
                    child
                } else {
                    let target = self.modules.get(from)?.imports.get(name)?;
                    // An import names itself as its own first segment only
                    // when it is another crate's (`use serde::Serialize`).
                    if target.first() == Some(first) {
                        return None;
                    }
                    let mut target = self.absolute(from, target)?;
                    target.extend(rest.iter().cloned());
                    return Some(target);
                }
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file that defines what the absolute `path` names, following
    /// `use` re-exports from the module it passes through.
    fn defining_file(&self, path: &[String], depth: usize) -> Option<usize> {
        let split = (0..=path.len())
            .rev()
            .find(|&i| self.modules.contains_key(&path[..i]))?;
        let (module_path, rest) = path.split_at(split);
        let module = &self.modules[module_path];
        if depth < 16 {
            if let Some(target) = rest.first().and_then(|n| module.imports.get(n)) {
                if let Some(target) = self.absolute(module_path, target) {
                    let mut target = target;
                    target.extend(rest[1..].iter().cloned());
                    if let Some(file) = self.defining_file(&target, depth + 1) {
                        return Some(file);
                    }
                }
            }
        }
        Some(module.file)
    }

    /// File to the files it imports from; `with_tests` counts what
    /// `#[cfg(test)]` modules import too.
    pub(super) fn edges(&self, with_tests: bool) -> BTreeMap<usize, BTreeSet<usize>> {
        let mut edges: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for (path, module) in &self.modules {
            if module.test && !with_tests {
                continue;
            }
            for name in &module.names {
                let Some(absolute) = self.absolute(path, name) else {
                    continue;
                };
                if let Some(target) = self.defining_file(&absolute, 0) {
                    if target != module.file {
                        edges.entry(module.file).or_default().insert(target);
                    }
                }
            }
        }
        edges
    }

    pub(super) fn top_module(&self, file: usize) -> String {
        let relative = self.files[file].strip_prefix("src").unwrap();
        let first = relative.iter().next().unwrap().to_string_lossy();
        first.trim_end_matches(".rs").to_owned()
    }
}

/// Strongly connected components with more than one file (Tarjan).
pub(super) fn circles(edges: &BTreeMap<usize, BTreeSet<usize>>, count: usize) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<usize, BTreeSet<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    fn connect(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let targets: Vec<usize> = s.edges.get(&v).into_iter().flatten().copied().collect();
        for w in targets {
            match s.index[w] {
                None => {
                    connect(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: vec![None; count],
        low: vec![0; count],
        stack: Vec::new(),
        on_stack: vec![false; count],
        next: 0,
        found: Vec::new(),
    };
    for v in 0..count {
        if state.index[v].is_none() {
            connect(&mut state, v);
        }
    }
    state.found
}

/// The folder a file belongs to: its directory, or for `x.rs` beside an
/// `x/` directory, that directory (`x.rs` is its `mod.rs`).
pub(super) fn folder_of(src: &Path, file: &Path) -> PathBuf {
    let beside = file.with_extension("");
    if src.parent().unwrap().join(&beside).is_dir() {
        beside
    } else {
        file.parent().unwrap().to_owned()
    }
}

/// The file that speaks for a folder: `lib.rs` for `src/`, else its
/// `mod.rs`, or the `x.rs` beside an `x/` folder.
pub(super) fn index_of(src: &Path, folder: &Path) -> PathBuf {
    let root = src.parent().unwrap();
    if folder == Path::new("src") {
        folder.join("lib.rs")
    } else if root.join(folder).join("mod.rs").is_file() {
        folder.join("mod.rs")
    } else {
        folder.with_extension("rs")
    }
}
