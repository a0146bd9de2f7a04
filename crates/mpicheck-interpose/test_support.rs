// Test helpers shared by the interposition crates' integration tests (pulled in with
// `include!`): compile an MPI program with the family's compiler, run it under mpiexec with
// the freshly built library preloaded, and read the per-process traces back.

#[allow(dead_code)]
mod support {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use mpicheck_trace::schema::{decode_args, ArgValue};
    use mpicheck_trace::{read_trace, CallRecord, Trace};

    pub struct Family {
        pub name: &'static str,
        pub lib: &'static str,
        pub mpicc: String,
        pub mpifort: String,
        pub mpiexec: String,
        /// Extra mpiexec arguments (Open MPI as root, on 2 cores).
        pub mpiexec_args: &'static [&'static str],
    }

    impl Family {
        pub fn mpich() -> Family {
            Family {
                name: "mpich",
                lib: "libmpicheck_mpich.so",
                mpicc: env_or("MPICHECK_MPICC_MPICH", "mpicc.mpich"),
                mpifort: env_or("MPICHECK_MPIFORT_MPICH", "mpifort.mpich"),
                mpiexec: env_or("MPICHECK_MPIEXEC_MPICH", "mpiexec.mpich"),
                mpiexec_args: &[],
            }
        }

        pub fn openmpi() -> Family {
            Family {
                name: "openmpi",
                lib: "libmpicheck_openmpi.so",
                mpicc: env_or("MPICHECK_MPICC_OPENMPI", "mpicc.openmpi"),
                mpifort: env_or("MPICHECK_MPIFORT_OPENMPI", "mpifort.openmpi"),
                mpiexec: env_or("MPICHECK_MPIEXEC_OPENMPI", "mpiexec.openmpi"),
                mpiexec_args: &["--allow-run-as-root", "--oversubscribe"],
            }
        }

        /// The MPI-5 standard ABI (MPICH's `mpicc_abi` and its Hydra `mpiexec`), at the
        /// paths the library's build script found.
        pub fn mpiabi(mpicc: &str, mpiexec: &str) -> Family {
            Family {
                name: "mpiabi",
                lib: "libmpicheck_mpiabi.so",
                mpicc: mpicc.to_string(),
                // The ABI has no Fortran bindings.
                mpifort: String::new(),
                mpiexec: mpiexec.to_string(),
                mpiexec_args: &[],
            }
        }

        /// The interposition library cargo built for this test run: in the test binary's own
        /// `deps` directory (what `cargo test` just linked; the copy one level up is only
        /// refreshed by `cargo build` and may be stale).
        pub fn library(&self) -> PathBuf {
            let exe = std::env::current_exe().unwrap();
            let deps = exe.parent().unwrap();
            for dir in [deps, deps.parent().unwrap()] {
                let path = dir.join(self.lib);
                if path.exists() {
                    return path;
                }
            }
            panic!("{} not found next to {}", self.lib, exe.display());
        }

        pub fn compile(&self, compiler: &str, source: &Path, exe: &Path) {
            let out = Command::new(compiler)
                .arg(source)
                .arg("-o")
                .arg(exe)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{compiler} {} failed:\n{}",
                source.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }

        /// Runs `exe` on `ranks` processes with the library preloaded into the MPI processes
        /// only (not into mpiexec), under a timeout, and returns the traces by world rank.
        pub fn run(&self, exe: &Path, ranks: u32, out_dir: &Path) -> BTreeMap<i32, Trace> {
            let lib = self.library();
            let mut cmd = Command::new("timeout");
            cmd.arg("60")
                .arg(&self.mpiexec)
                .args(self.mpiexec_args)
                .arg("-n")
                .arg(ranks.to_string());
            if self.name == "openmpi" {
                cmd.arg("-x").arg(format!("LD_PRELOAD={}", lib.display()));
                cmd.arg("-x")
                    .arg(format!("MPICHECK_OUT_DIR={}", out_dir.display()));
            } else {
                // MPICH's Hydra (also the launcher of the ABI's MPICH).
                cmd.arg("-genv").arg("LD_PRELOAD").arg(&lib);
                cmd.arg("-genv").arg("MPICHECK_OUT_DIR").arg(out_dir);
            }
            cmd.arg(exe);
            let out = cmd.output().unwrap();
            assert!(
                out.status.success(),
                "{cmd:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            let mut traces = BTreeMap::new();
            for entry in std::fs::read_dir(out_dir).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "mpitrace") {
                    let trace =
                        read_trace(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    let rank = trace
                        .header
                        .rank
                        .unwrap_or_else(|| panic!("{}: no world rank", path.display()));
                    assert!(
                        traces.insert(rank, trace).is_none(),
                        "two traces for rank {rank}"
                    );
                }
            }
            assert_eq!(
                traces.len(),
                ranks as usize,
                "one trace per rank in {}",
                out_dir.display()
            );
            traces
        }
    }

    fn env_or(var: &str, default: &str) -> String {
        std::env::var(var).unwrap_or_else(|_| default.to_string())
    }

    /// Whether `program` can be run (so a machine without this MPI skips instead of failing).
    pub fn have(program: &str) -> bool {
        Command::new(program).arg("--version").output().is_ok()
    }

    /// One recorded call with its decoded arguments by parameter name.
    pub struct Call<'a> {
        pub name: String,
        pub record: &'a CallRecord,
        pub args: BTreeMap<String, (ArgValue, ArgValue)>,
    }

    impl Call<'_> {
        pub fn input(&self, param: &str) -> &ArgValue {
            &self
                .args
                .get(param)
                .unwrap_or_else(|| panic!("{} has no parameter {param}", self.name))
                .0
        }
        pub fn output(&self, param: &str) -> &ArgValue {
            &self
                .args
                .get(param)
                .unwrap_or_else(|| panic!("{} has no parameter {param}", self.name))
                .1
        }
        pub fn ret(&self) -> i32 {
            self.record.ret
        }
        pub fn int(&self, param: &str) -> i64 {
            self.input(param)
                .as_int()
                .unwrap_or_else(|| panic!("{}.{param} = {:?}", self.name, self.input(param)))
        }
    }

    pub fn calls(trace: &Trace) -> Vec<Call<'_>> {
        trace
            .calls
            .iter()
            .map(|record| {
                let function = trace
                    .schema
                    .function(record.func)
                    .expect("call of a function in the schema");
                let values = decode_args(function, &record.words, record.complete);
                let args = function
                    .params
                    .iter()
                    .map(|p| p.name.clone())
                    .zip(values)
                    .collect();
                Call {
                    name: function.name.clone(),
                    record,
                    args,
                }
            })
            .collect()
    }

    /// The calls named `name`, asserting there are exactly `count` of them.
    pub fn exactly<'a>(calls: &'a [Call<'a>], name: &str, count: usize) -> Vec<&'a Call<'a>> {
        let found: Vec<&Call> = calls.iter().filter(|c| c.name == name).collect();
        assert_eq!(
            found.len(),
            count,
            "{name} recorded {} times, expected {count}; calls: {:?}",
            found.len(),
            calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>()
        );
        found
    }

    /// The one call named `name` for which `pred` holds.
    pub fn one<'a>(
        calls: &'a [Call<'a>],
        name: &str,
        pred: impl Fn(&Call) -> bool,
    ) -> &'a Call<'a> {
        let found: Vec<&Call> = calls.iter().filter(|c| c.name == name && pred(c)).collect();
        assert_eq!(
            found.len(),
            1,
            "{name} matching the condition recorded {} times",
            found.len()
        );
        found[0]
    }

    /// The first call named `name` recorded after `after` (pseudo-calls follow their call).
    pub fn next_after<'a>(calls: &'a [Call<'a>], after: &Call, name: &str) -> &'a Call<'a> {
        let at = calls
            .iter()
            .position(|c| std::ptr::eq(c.record, after.record))
            .unwrap();
        calls[at + 1..]
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no {name} after {}", after.name))
    }

    pub fn constant(trace: &Trace, name: &str) -> i64 {
        trace
            .constant(name)
            .unwrap_or_else(|| panic!("constant {name} missing"))
            .parse()
            .unwrap_or_else(|_| panic!("constant {name} not an integer"))
    }
}
