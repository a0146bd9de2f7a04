//! The exceptions of the handle rules: where a kind's null handle is an error (AR004), the
//! calls whose datatypes must be committed (AR006), and the conversions between handle
//! representations, which take any value (no rule judges them).

use mpicheck_trace::schema::FunctionSchema;

use super::table::NULL_HANDLE_KINDS;

/// Whether the null handle of a handle kind is an error as this call's input: never for
/// `MPI_INFO_NULL` except in the `MPI_Info_*` calls that work on the info object itself
/// (everywhere else it means "no hints"); never for `MPI_FILE_NULL` in
/// `MPI_File_set_errhandler`/`_get_errhandler`, where it names the default error handler
/// of files (MPI 4.1 §9.3.4), or `MPI_File_call_errhandler`. Requests are judged by call
/// instead ([`null_request_forbidden`]); datatypes only where significant.
pub(super) fn null_forbidden(short: &str, kind: &str) -> bool {
    match kind {
        "INFO" => short.starts_with("Info_") && !short.starts_with("Info_create"),
        "FILE" => !matches!(
            short,
            "File_set_errhandler" | "File_get_errhandler" | "File_call_errhandler"
        ),
        "REQUEST" => false,
        _ => NULL_HANDLE_KINDS.contains(&kind),
    }
}

/// Calls that need a request, not `MPI_REQUEST_NULL` (waits and tests accept it).
pub(super) fn null_request_forbidden(short: &str) -> bool {
    matches!(
        short,
        "Start"
            | "Request_free"
            | "Cancel"
            | "Pready"
            | "Pready_range"
            | "Pready_list"
            | "Parrived"
    )
}

/// Conversions between handle representations take any handle value.
pub(super) fn conversion(short: &str) -> bool {
    short.ends_with("_c2f")
        || short.ends_with("_f2c")
        || short.ends_with("_toint")
        || short.ends_with("_fromint")
}

/// Calls that read or write a buffer described by their datatype (so the datatype must be
/// committed): every call with a buffer and a datatype except packing, which the standard
/// lets describe any datatype.
pub(super) fn moves_data(function: &FunctionSchema, short: &str) -> bool {
    let has = |kind: &str| function.params.iter().any(|p| p.kind == kind);
    has("BUFFER") && has("DATATYPE") && !short.starts_with("Pack") && !short.starts_with("Unpack")
}
