//! Null handles where an object is needed (AR004).

use super::IssuePass;
use crate::checks::pass::EventPass;
use crate::checks::Check;
use crate::diagnostic::{Category, CheckInfo, Severity};
use crate::model::ArgProblem;

pub const AR004: CheckInfo = CheckInfo {
    code: "AR004",
    name: "null-handle",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "a null handle (MPI_COMM_NULL, MPI_DATATYPE_NULL, MPI_OP_NULL, MPI_GROUP_NULL, MPI_WIN_NULL, MPI_ERRHANDLER_NULL, MPI_FILE_NULL, MPI_INFO_NULL, MPI_SESSION_NULL, MPI_REQUEST_NULL) is passed where a valid object is needed",
    docs: r#"## What it does

Reports `MPI_COMM_NULL`, `MPI_GROUP_NULL`, `MPI_OP_NULL`, `MPI_WIN_NULL`,
`MPI_ERRHANDLER_NULL` and `MPI_SESSION_NULL` passed as input arguments,
`MPI_DATATYPE_NULL` as the datatype of a point-to-point call or of a collective whose
datatype matters on every rank, `MPI_FILE_NULL` to the file calls (except
`MPI_File_set_errhandler`/`MPI_File_get_errhandler`, where it names the default error
handler of files), `MPI_INFO_NULL` to the `MPI_Info_*` calls that work on an info object,
and `MPI_REQUEST_NULL` passed to `MPI_Start`, `MPI_Cancel` or `MPI_Request_free`. Null
handles that the standard allows (`MPI_INFO_NULL` as the hints of any other call, a
`peer_comm` that matters only at the leaders, arguments significant only at the root) are
not reported.

## Why is this bad

A null handle names no object; using it is erroneous and with the default error handler
aborts the program. The classic case is a communicator from `MPI_Comm_split` with
`MPI_UNDEFINED` color, which is `MPI_COMM_NULL` on the ranks left out.

## Example

```c
MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &sub);
MPI_Barrier(sub);          /* MPI_COMM_NULL on ranks 2.. */
```

## How to fix

Test for the null handle before using the object (`if (sub != MPI_COMM_NULL)`), and do
not use handles after the call that frees them (which sets them to null).

## MPI standard reference

MPI 4.1 §2.5.1 (opaque objects and null handles), §6.4.2 (`MPI_Comm_split` returns
`MPI_COMM_NULL`), §3.7.3 and §3.9 (`MPI_Request_free`, `MPI_Start` need a request),
§9.3 (error handlers; `MPI_FILE_NULL` for the default file error handler), §10
(`MPI_INFO_NULL` as hints).
"#,
};

fn pass() -> Box<dyn EventPass> {
    IssuePass::boxed(
        &AR004,
        &["a null handle names no object and is not a valid argument here (MPI 4.1 §2.5.1)"],
        "check for the null handle before the call (if (comm != MPI_COMM_NULL) ...), or pass the intended object",
        |issue, call| match &issue.problem {
            ArgProblem::NullHandle { kind } => Some((
                format!("{call} is given {} for {}", null_name(*kind), issue.param),
                format!("{} is {}", issue.param, null_name(*kind)),
            )),
            _ => None,
        },
    )
}

fn null_name(kind: crate::model::ObjectKind) -> &'static str {
    use crate::model::ObjectKind::*;
    match kind {
        Communicator => "MPI_COMM_NULL",
        Group => "MPI_GROUP_NULL",
        Datatype => "MPI_DATATYPE_NULL",
        Op => "MPI_OP_NULL",
        Window => "MPI_WIN_NULL",
        Errhandler => "MPI_ERRHANDLER_NULL",
        Keyval => "MPI_KEYVAL_INVALID",
        Info => "MPI_INFO_NULL",
        File => "MPI_FILE_NULL",
        Session => "MPI_SESSION_NULL",
        Request => "MPI_REQUEST_NULL",
    }
}

/// AR004.
pub(crate) struct NullHandle;

impl Check for NullHandle {
    fn infos(&self) -> &'static [CheckInfo] {
        &[AR004]
    }
    fn pass(&self) -> Option<Box<dyn EventPass>> {
        Some(pass())
    }
}
