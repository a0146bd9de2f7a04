//! Argument values of text-trace lines: ranks, tags, communicators, requests, datatypes,
//! collective arguments, call sites.

use super::names::*;
use super::{Keys, Parser, TextTraceError};
use crate::model::*;

impl Parser {
    pub(super) fn err<T>(&self, message: impl Into<String>) -> Result<T, TextTraceError> {
        Err(TextTraceError {
            line: self.line,
            message: message.into(),
        })
    }

    pub(super) fn int<T: std::str::FromStr>(
        &self,
        key: &str,
        value: &str,
    ) -> Result<T, TextTraceError> {
        value
            .parse::<T>()
            .or_else(|_| self.err(format!("`{key}={value}`: not a valid number")))
    }

    pub(super) fn rank_value(&self, key: &str, value: &str) -> Result<Rank, TextTraceError> {
        let r: Rank = self.int(key, value)?;
        if r >= self.run.world_size() {
            return self.err(format!(
                "`{key}={r}`: there are only {} ranks",
                self.run.world_size()
            ));
        }
        Ok(r)
    }

    pub(super) fn comm(&self, keys: &Keys) -> Result<CommId, TextTraceError> {
        match keys.get("comm") {
            None => Ok(CommId(0)),
            Some(v) => {
                let c: u32 = self.int("comm", v)?;
                if c as usize >= self.run.comms.len() {
                    return self.err(format!("`comm={c}`: communicator {c} is not declared"));
                }
                Ok(CommId(c))
            }
        }
    }

    pub(super) fn tag(&self, keys: &Keys, key: &str) -> Result<i32, TextTraceError> {
        keys.get(key).map_or(Ok(0), |v| self.int(key, v))
    }

    pub(super) fn tag_match(&self, keys: &Keys, key: &str) -> Result<TagMatch, TextTraceError> {
        match keys.get(key) {
            None => Ok(TagMatch::Tag(0)),
            Some(&"any") => Ok(TagMatch::Any),
            Some(v) => Ok(TagMatch::Tag(self.int(key, v)?)),
        }
    }

    pub(super) fn dest(&self, keys: &Keys, key: &str) -> Result<Option<Rank>, TextTraceError> {
        match keys.get(key) {
            None => self.err(format!("missing `{key}=`")),
            Some(&"null") => Ok(None),
            Some(v) => Ok(Some(self.rank_value(key, v)?)),
        }
    }

    pub(super) fn source(&self, keys: &Keys, key: &str) -> Result<Option<Source>, TextTraceError> {
        match keys.get(key) {
            None => self.err(format!("missing `{key}=`")),
            Some(&"null") => Ok(None),
            Some(&"any") => Ok(Some(Source::Any)),
            Some(v) => Ok(Some(Source::Rank(self.rank_value(key, v)?))),
        }
    }

    pub(super) fn matched(
        &self,
        keys: &Keys,
        tag: TagMatch,
    ) -> Result<Option<(Rank, i32)>, TextTraceError> {
        let Some(v) = keys.get("matched") else {
            return Ok(None);
        };
        let (src, t) = match v.split_once(':') {
            Some((s, t)) => (s, Some(t)),
            None => (*v, None),
        };
        let src = self.rank_value("matched", src)?;
        let t = match (t, tag) {
            (Some(t), _) => self.int("matched", t)?,
            (None, TagMatch::Tag(t)) => t,
            (None, TagMatch::Any) => 0,
        };
        Ok(Some((src, t)))
    }

    pub(super) fn req(&self, keys: &Keys) -> Result<ReqId, TextTraceError> {
        match keys.get("req") {
            None => self.err("missing `req=`"),
            Some(v) => Ok(ReqId(self.int("req", v)?)),
        }
    }

    pub(super) fn req_list(&self, keys: &Keys) -> Result<Vec<Option<ReqId>>, TextTraceError> {
        let Some(v) = keys.get("reqs").or(keys.get("req")) else {
            return self.err("missing `reqs=`");
        };
        v.split(',')
            .map(|r| {
                if r == "null" {
                    Ok(None)
                } else {
                    Ok(Some(ReqId(self.int("reqs", r)?)))
                }
            })
            .collect()
    }

    pub(super) fn index_list(&self, key: &str, v: &str) -> Result<Vec<u32>, TextTraceError> {
        if v.is_empty() || v == "none" {
            return Ok(Vec::new());
        }
        v.split(',').map(|i| self.int(key, i)).collect()
    }

    pub(super) fn datatype(&mut self, keys: &Keys) -> Result<Option<TypeId>, TextTraceError> {
        let Some(name) = keys.get("type") else {
            return Ok(None);
        };
        if let Some(&id) = self.type_ids.get(*name) {
            return Ok(Some(id));
        }
        self.type_named(name).map(Some)
    }

    pub(super) fn type_named(&mut self, name: &str) -> Result<TypeId, TextTraceError> {
        if let Some(&id) = self.type_ids.get(name) {
            return Ok(id);
        }
        let Some(size) = builtin_type(name) else {
            return self.err(format!("`type={name}`: unknown datatype"));
        };
        let id = TypeId(self.run.datatypes.len() as u32);
        let mpi_name = format!("MPI_{}", name.to_ascii_uppercase());
        self.run.datatypes.push(DatatypeInfo {
            layout: Some(crate::typesig::Layout::predefined(&mpi_name)),
            name: mpi_name,
            size: Some(size),
        });
        self.type_ids.insert(name.to_string(), id);
        Ok(id)
    }

    /// `type NAME 2*int,1*double`: a derived type of blocks of known types.
    pub(super) fn declare_type(&mut self, name: &str, blocks: &str) -> Result<(), TextTraceError> {
        let mut pieces = Vec::new();
        let mut size = 0u64;
        for block in blocks.split(',') {
            let (n, t) = block.split_once('*').unwrap_or(("1", block));
            let n: u64 = self.int("type", n)?;
            let id = self.type_named(t)?;
            let info = &self.run.datatypes[id.0 as usize];
            size += n * info.size.unwrap_or(0);
            let Some(layout) = info.layout.clone() else {
                return self.err(format!("type {t} has no signature"));
            };
            pieces.push((n, layout));
        }
        let layout = crate::typesig::Layout::derived(pieces, format!("{name}({blocks})"));
        let id = TypeId(self.run.datatypes.len() as u32);
        self.run.datatypes.push(DatatypeInfo {
            name: layout.description.clone(),
            size: Some(size),
            layout: Some(layout),
        });
        self.type_ids.insert(name.to_string(), id);
        Ok(())
    }

    pub(super) fn list<T>(
        &mut self,
        keys: &Keys,
        key: &str,
        mut item: impl FnMut(&mut Self, &str) -> Result<T, TextTraceError>,
    ) -> Result<Option<Vec<T>>, TextTraceError> {
        let Some(v) = keys.get(key) else {
            return Ok(None);
        };
        v.split(',')
            .map(|x| item(self, x))
            .collect::<Result<Vec<T>, _>>()
            .map(Some)
    }

    /// The collective arguments given as keys, if any.
    pub(super) fn collective_args(
        &mut self,
        keys: &Keys,
    ) -> Result<CollectiveArgs, TextTraceError> {
        let buf =
            |p: &mut Self, count: &str, ty: &str| -> Result<Option<BufSpec>, TextTraceError> {
                let Some(t) = keys.get(ty) else {
                    return Ok(None);
                };
                let count = keys.get(count).map_or(Ok(1), |v| p.int(count, v))?;
                Ok(Some(BufSpec {
                    count,
                    datatype: Some(p.type_named(t)?),
                }))
            };
        let mut args = CollectiveArgs {
            in_place: keys.get("inplace").is_some_and(|v| *v == "1"),
            op: keys
                .get("op")
                .map(|o| format!("MPI_{}", o.to_ascii_uppercase()).into()),
            ..Default::default()
        };
        args.send = match buf(self, "count", "type")? {
            Some(b) => Some(b),
            None => buf(self, "sendcount", "sendtype")?,
        };
        args.recv = buf(self, "recvcount", "recvtype")?;
        args.send_counts = self.list(keys, "sendcounts", |p, x| p.int("sendcounts", x))?;
        args.recv_counts = self.list(keys, "recvcounts", |p, x| p.int("recvcounts", x))?;
        args.send_types = self.list(keys, "sendtypes", |p, x| p.type_named(x).map(Some))?;
        args.recv_types = self.list(keys, "recvtypes", |p, x| p.type_named(x).map(Some))?;
        if let Some(v) = keys.get("agree") {
            for pair in v.split(',') {
                let Some((k, v)) = pair.split_once(':') else {
                    return self.err("`agree=` takes NAME:VALUE pairs");
                };
                let name: &'static str = intern(k);
                args.agree.push((name, v.to_string()));
            }
        }
        Ok(args)
    }

    pub(super) fn count(&self, keys: &Keys) -> Result<i64, TextTraceError> {
        keys.get("count").map_or(Ok(1), |v| self.int("count", v))
    }

    pub(super) fn site(&mut self, text: &str) -> Result<SiteId, TextTraceError> {
        let text = text.trim();
        let Some((file, line)) = text.rsplit_once(':') else {
            return self.err(format!("`@ {text}`: expected `@ file:line`"));
        };
        let line: u32 = self.int("@", line.trim())?;
        let key = (file.trim().to_string(), line);
        if let Some(&id) = self.site_ids.get(&key) {
            return Ok(id);
        }
        let id = SiteId(self.run.sites.len() as u32);
        self.run.sites.push(SourceLocation {
            file: Some(key.0.clone()),
            line: Some(line),
            ..Default::default()
        });
        self.site_ids.insert(key, id);
        Ok(id)
    }

    pub(super) fn ranks(&self, spec: &str) -> Result<Vec<Rank>, TextTraceError> {
        let n = self.run.world_size();
        if spec.trim() == "*" {
            return Ok((0..n).collect());
        }
        let mut out = Vec::new();
        for part in spec.split(',') {
            let part = part.trim();
            let (a, b) = match part.split_once('-') {
                Some((a, b)) => (self.rank_value("rank", a)?, self.rank_value("rank", b)?),
                None => {
                    let r = self.rank_value("rank", part)?;
                    (r, r)
                }
            };
            if a > b {
                return self.err(format!("`{part}`: empty rank range"));
            }
            out.extend(a..=b);
        }
        Ok(out)
    }

    pub(super) fn send_spec(
        &mut self,
        keys: &Keys,
        mode: SendMode,
        tag_key: &str,
    ) -> Result<SendSpec, TextTraceError> {
        Ok(SendSpec {
            dest: self.dest(keys, "dest")?,
            tag: self.tag(keys, tag_key)?,
            comm: self.comm(keys)?,
            count: self.count(keys)?,
            datatype: self.datatype(keys)?,
            mode,
        })
    }

    pub(super) fn recv_spec(
        &mut self,
        keys: &Keys,
        tag_key: &str,
    ) -> Result<RecvSpec, TextTraceError> {
        let tag = self.tag_match(keys, tag_key)?;
        Ok(RecvSpec {
            source: self.source(keys, "src")?,
            tag,
            comm: self.comm(keys)?,
            count: self.count(keys)?,
            datatype: self.datatype(keys)?,
            matched: self.matched(keys, tag)?,
        })
    }
}
