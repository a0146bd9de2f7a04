//! What operation a function's calls become, worked out from its name once per function
//! ([`CallKind::of`]) instead of comparing the name with every operation's names call after
//! call; and where the parameters of its collective arguments are ([`CollectivePlan`]).

use super::names::{collective_kind, nonblocking_base, FILE_COLLECTIVES, MANAGEMENT_COLLECTIVES};
use crate::model::{CollectiveKind, SendMode, WaitKind};

/// How an operation completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    Blocking,
    Nonblocking,
    Persistent,
}

/// The operation a function's calls become (see `RankNormalizer::event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CallKind {
    /// `MPICHECK_Comm_info`: the members of the communicator just made.
    CommInfo,
    /// `MPICHECK_Type_info`: the size and layout of a committed datatype.
    TypeInfo,
    OpCreate,
    Init,
    InitThread,
    Finalize,
    BufferAttach,
    BufferDetach,
    Send {
        mode: SendMode,
        form: Form,
    },
    Recv {
        form: Form,
    },
    Sendrecv {
        nonblocking: bool,
    },
    Probe {
        blocking: bool,
        matched_probe: bool,
    },
    /// Waits, tests and `MPI_Request_get_status*` (`status_only`: the request stays).
    Wait {
        kind: WaitKind,
        test: bool,
        status_only: bool,
    },
    Start,
    Cancel,
    RequestFree,
    CommFree,
    /// A collective by its name (the call may still be none, on a file or window the trace
    /// did not see).
    Collective {
        kind: CollectiveKind,
        form: Form,
    },
    /// No operation of the model.
    Other,
}

impl CallKind {
    /// The kind of function `name` (without the large-count suffix: `MPI_Send`).
    pub(super) fn of(name: &str) -> CallKind {
        match name {
            "MPICHECK_Comm_info" => return CallKind::CommInfo,
            "MPICHECK_Type_info" => return CallKind::TypeInfo,
            "MPI_Op_create" => return CallKind::OpCreate,
            "MPI_Init" => return CallKind::Init,
            "MPI_Init_thread" => return CallKind::InitThread,
            "MPI_Finalize" => return CallKind::Finalize,
            "MPI_Buffer_attach" => return CallKind::BufferAttach,
            "MPI_Buffer_detach" => return CallKind::BufferDetach,
            _ => {}
        }
        let Some(short) = name.strip_prefix("MPI_") else {
            return CallKind::Other;
        };
        let mode = match short {
            // A partitioned send is a persistent send of all its partitions (MPI 4.1 §4.1).
            "Send" | "Isend" | "Send_init" | "Psend_init" => Some(SendMode::Standard),
            "Ssend" | "Issend" | "Ssend_init" => Some(SendMode::Synchronous),
            "Bsend" | "Ibsend" | "Bsend_init" => Some(SendMode::Buffered),
            "Rsend" | "Irsend" | "Rsend_init" => Some(SendMode::Ready),
            _ => None,
        };
        if let Some(mode) = mode {
            let form = if short.ends_with("_init") {
                Form::Persistent
            } else if short.starts_with('I') {
                Form::Nonblocking
            } else {
                Form::Blocking
            };
            return CallKind::Send { mode, form };
        }
        match short {
            "Recv" => CallKind::Recv {
                form: Form::Blocking,
            },
            "Irecv" => CallKind::Recv {
                form: Form::Nonblocking,
            },
            "Recv_init" | "Precv_init" => CallKind::Recv {
                form: Form::Persistent,
            },
            "Sendrecv" | "Sendrecv_replace" | "Isendrecv" | "Isendrecv_replace" => {
                CallKind::Sendrecv {
                    nonblocking: short.starts_with('I'),
                }
            }
            "Probe" | "Iprobe" | "Mprobe" | "Improbe" => CallKind::Probe {
                blocking: !short.starts_with('I'),
                matched_probe: short.contains("mprobe") || short.starts_with("Mprobe"),
            },
            "Wait"
            | "Test"
            | "Waitall"
            | "Testall"
            | "Waitany"
            | "Testany"
            | "Waitsome"
            | "Testsome"
            | "Request_get_status"
            | "Request_get_status_all"
            | "Request_get_status_any"
            | "Request_get_status_some" => {
                let status_only = short.starts_with("Request_get_status");
                let suffix = match short.strip_prefix("Request_get_status") {
                    Some(rest) => rest.trim_start_matches('_'),
                    None => &short[4..],
                };
                CallKind::Wait {
                    kind: match suffix {
                        "all" => WaitKind::All,
                        "any" => WaitKind::Any,
                        "some" => WaitKind::Some,
                        _ => WaitKind::One,
                    },
                    test: status_only || short.starts_with("Test"),
                    status_only,
                }
            }
            "Start" | "Startall" => CallKind::Start,
            "Cancel" => CallKind::Cancel,
            "Request_free" => CallKind::RequestFree,
            "Comm_free" => CallKind::CommFree,
            _ => match collective(short) {
                Some((kind, form)) => CallKind::Collective { kind, form },
                None => CallKind::Other,
            },
        }
    }
}

/// The collective a call is by its name (without `MPI_`), and how it completes.
fn collective(short: &str) -> Option<(CollectiveKind, Form)> {
    Some(if let Some(base) = short.strip_suffix("_init") {
        (collective_kind(base)?, Form::Persistent)
    } else if let Some(kind) = collective_kind(short) {
        (kind, Form::Blocking)
    } else if let Some(kind) = nonblocking_base(short).as_deref().and_then(collective_kind) {
        (kind, Form::Nonblocking)
    } else if MANAGEMENT_COLLECTIVES.contains(&format!("MPI_{short}").as_str())
        || FILE_COLLECTIVES.contains(&short)
    {
        (
            CollectiveKind::Management,
            if short.starts_with("Comm_i") {
                Form::Nonblocking
            } else {
                Form::Blocking
            },
        )
    } else {
        return None;
    })
}

/// Which of the arguments that must agree across ranks a collective has (the arms of
/// `RankNormalizer::collective_args`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AgreeArgs {
    /// `Bcast`, `Reduce`, `Allreduce`, `Scan`, `Exscan`: `count` of `datatype`.
    Counted,
    ReduceScatterBlock,
    ReduceScatter,
    CartCreate,
    GraphCreate,
    IntercommCreate,
    IntercommMerge,
    FileOpen,
    FileSetSize,
    FileSetAtomicity,
    FileSeekShared,
    FileSetView,
    WinFence,
    /// Other file calls: nothing.
    File,
    /// The send and receive buffers' counts and types.
    Buffers,
}

/// What `collective_args` reads of a function's calls, by position.
pub(super) struct CollectivePlan {
    /// The blocking collective's name (`Allreduce` for `MPI_Iallreduce`, `MPI_Allreduce_init`).
    pub(super) agree: AgreeArgs,
    /// A scatter (`Scatter`, `Scatterv`): its receive buffer may be `MPI_IN_PLACE`.
    pub(super) scatter: bool,
    /// A neighborhood collective.
    pub(super) neighbor: bool,
    pub(super) sendbuf: Option<usize>,
    pub(super) recvbuf: Option<usize>,
    pub(super) count: Option<usize>,
    pub(super) datatype: Option<usize>,
    pub(super) sendcount: Option<usize>,
    pub(super) sendtype: Option<usize>,
    pub(super) recvcount: Option<usize>,
    pub(super) recvtype: Option<usize>,
    pub(super) sendcounts: Option<usize>,
    pub(super) recvcounts: Option<usize>,
    pub(super) sendtypes: Option<usize>,
    pub(super) recvtypes: Option<usize>,
    pub(super) op: Option<usize>,
    pub(super) comm: Option<usize>,
    /// The first communicator parameter, of any direction.
    pub(super) first_comm: Option<usize>,
    pub(super) fh: Option<usize>,
    pub(super) win: Option<usize>,
    pub(super) root: Option<usize>,
    /// A file call (`File_*`), and `File_open`.
    pub(super) file_call: bool,
    pub(super) file_open: bool,
    /// What the call does to the rank's files and windows.
    pub(super) handles: HandleAction,
}

/// What a collective does to the rank's table of files or windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HandleAction {
    None,
    FileOpen,
    FileClose,
    WinCreate,
    WinFree,
}

impl CollectivePlan {
    /// The plan of a function whose name without `MPI_` is `short`, with parameter
    /// positions by name from `position`.
    pub(super) fn of(
        short: &str,
        position: impl Fn(&str) -> Option<usize>,
        first_comm: Option<usize>,
    ) -> CollectivePlan {
        let base = short.strip_suffix("_init").unwrap_or(short);
        let base = collective_kind(base)
            .map(|_| base.to_string())
            .or_else(|| nonblocking_base(base).filter(|b| collective_kind(b).is_some()))
            .unwrap_or_else(|| base.to_string());
        let agree = match base.as_str() {
            "Bcast" | "Reduce" | "Allreduce" | "Scan" | "Exscan" => AgreeArgs::Counted,
            "Reduce_scatter_block" => AgreeArgs::ReduceScatterBlock,
            "Reduce_scatter" => AgreeArgs::ReduceScatter,
            "Cart_create" | "Cart_map" => AgreeArgs::CartCreate,
            "Graph_create" | "Graph_map" => AgreeArgs::GraphCreate,
            "Intercomm_create" => AgreeArgs::IntercommCreate,
            "Intercomm_merge" => AgreeArgs::IntercommMerge,
            "File_open" => AgreeArgs::FileOpen,
            "File_set_size" | "File_preallocate" => AgreeArgs::FileSetSize,
            "File_set_atomicity" => AgreeArgs::FileSetAtomicity,
            "File_seek_shared" => AgreeArgs::FileSeekShared,
            "File_set_view" => AgreeArgs::FileSetView,
            "Win_fence" => AgreeArgs::WinFence,
            s if s.starts_with("File_") => AgreeArgs::File,
            _ => AgreeArgs::Buffers,
        };
        CollectivePlan {
            agree,
            scatter: matches!(base.as_str(), "Scatter" | "Scatterv"),
            neighbor: base.starts_with("Neighbor_"),
            sendbuf: position("sendbuf"),
            recvbuf: position("recvbuf"),
            count: position("count"),
            datatype: position("datatype"),
            sendcount: position("sendcount"),
            sendtype: position("sendtype"),
            recvcount: position("recvcount"),
            recvtype: position("recvtype"),
            sendcounts: position("sendcounts"),
            recvcounts: position("recvcounts"),
            sendtypes: position("sendtypes"),
            recvtypes: position("recvtypes"),
            op: position("op"),
            comm: position("comm"),
            first_comm,
            fh: position("fh"),
            win: position("win"),
            root: position("root"),
            file_call: short.starts_with("File_"),
            file_open: short == "File_open",
            handles: match short {
                "File_open" => HandleAction::FileOpen,
                "File_close" => HandleAction::FileClose,
                "Win_create" | "Win_allocate" | "Win_allocate_shared" | "Win_create_dynamic" => {
                    HandleAction::WinCreate
                }
                "Win_free" => HandleAction::WinFree,
                _ => HandleAction::None,
            },
        }
    }
}
