//! Operations and datatypes an accumulate may not use (RM009).

use crate::checks::pass::{RunTables, SiteFindings};
use crate::diagnostic::{Category, CheckInfo, Diagnostic, Severity};
use crate::model::*;
use crate::text::Text;

pub const RM009: CheckInfo = CheckInfo {
    code: "RM009",
    name: "invalid-accumulate-operation",
    category: Category::InvalidArgument,
    severity: Severity::Error,
    summary: "an accumulate call (MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap, MPI_Raccumulate, ...) uses a user-defined operation, a target datatype not made of one predefined type, or an operation MPI does not define for that type",
    docs: r#"## What it does

Checks the operation and the target datatype of `MPI_Accumulate`, `MPI_Get_accumulate`,
`MPI_Fetch_and_op`, `MPI_Raccumulate`, `MPI_Rget_accumulate` and the datatype of
`MPI_Compare_and_swap`:

- the operation must be predefined (`MPI_SUM`, `MPI_MAX`, ..., or `MPI_REPLACE` and
  `MPI_NO_OP`): user-defined operations are not allowed;
- the target datatype must be predefined, or derived with all its elements of one
  predefined type (its basic datatype);
- the operation must be defined for that basic datatype, as for reductions: `MPI_MAX` and
  `MPI_MIN` on integers and floating point, `MPI_SUM` and `MPI_PROD` also on complex,
  logical operations on C integers and logicals, bit-wise ones on integers and `MPI_BYTE`,
  `MPI_MAXLOC` and `MPI_MINLOC` on the pair types (`MPI_2INT`, `MPI_DOUBLE_INT`, ...);
  `MPI_REPLACE` and `MPI_NO_OP` on any of them. `MPI_Compare_and_swap` takes an integer,
  logical, multi-language type or `MPI_BYTE`.

Types mpicheck does not know (an MPI's own extensions) are not judged.

## Why is this bad

Accumulates are element-wise atomic at the target, which MPI can provide only for the
predefined operations on predefined types. Any other combination is erroneous: MPI
reports an error and, with the default error handler, aborts the job; an MPI that does not
check may update the target with garbage. The finding is reported even when the program
aborted in the call.

## Example

```c
double one = 1.0;
MPI_Win_fence(0, win);
MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_BAND, win);  /* no BAND on doubles */
MPI_Win_fence(0, win);
```

## How to fix

Use a predefined operation defined for the element type (`MPI_SUM` for doubles), build
derived target types from a single predefined type, and emulate other operations with
`MPI_Get` and `MPI_Put` inside an exclusive lock, or with `MPI_Compare_and_swap` in a loop.

## MPI standard reference

MPI 4.1 §12.3.4 (accumulate functions: predefined operations only, basic datatype),
§6.9.2 (which operations are defined for which datatypes), §12.3.4.3 (`MPI_Compare_and_swap`).
"#,
};

/// The groups of predefined datatypes of MPI 4.1 §6.9.2, by name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TypeGroup {
    CInteger,
    FortranInteger,
    FloatingPoint,
    Logical,
    Complex,
    Byte,
    MultiLanguage,
    Pair,
    /// `MPI_CHAR` and the other character types: no operation but `MPI_REPLACE` and
    /// `MPI_NO_OP`.
    Character,
}

fn group_of(basic: &str) -> Option<TypeGroup> {
    use TypeGroup::*;
    Some(match basic {
        "MPI_INT"
        | "MPI_LONG"
        | "MPI_SHORT"
        | "MPI_UNSIGNED_SHORT"
        | "MPI_UNSIGNED"
        | "MPI_UNSIGNED_LONG"
        | "MPI_LONG_LONG"
        | "MPI_LONG_LONG_INT"
        | "MPI_UNSIGNED_LONG_LONG"
        | "MPI_SIGNED_CHAR"
        | "MPI_UNSIGNED_CHAR"
        | "MPI_INT8_T"
        | "MPI_INT16_T"
        | "MPI_INT32_T"
        | "MPI_INT64_T"
        | "MPI_UINT8_T"
        | "MPI_UINT16_T"
        | "MPI_UINT32_T"
        | "MPI_UINT64_T" => CInteger,
        "MPI_INTEGER" | "MPI_INTEGER1" | "MPI_INTEGER2" | "MPI_INTEGER4" | "MPI_INTEGER8"
        | "MPI_INTEGER16" => FortranInteger,
        "MPI_FLOAT"
        | "MPI_DOUBLE"
        | "MPI_LONG_DOUBLE"
        | "MPI_REAL"
        | "MPI_DOUBLE_PRECISION"
        | "MPI_REAL2"
        | "MPI_REAL4"
        | "MPI_REAL8"
        | "MPI_REAL16" => FloatingPoint,
        "MPI_LOGICAL" | "MPI_C_BOOL" | "MPI_CXX_BOOL" => Logical,
        "MPI_COMPLEX"
        | "MPI_DOUBLE_COMPLEX"
        | "MPI_C_COMPLEX"
        | "MPI_C_FLOAT_COMPLEX"
        | "MPI_C_DOUBLE_COMPLEX"
        | "MPI_C_LONG_DOUBLE_COMPLEX"
        | "MPI_CXX_FLOAT_COMPLEX"
        | "MPI_CXX_DOUBLE_COMPLEX"
        | "MPI_CXX_LONG_DOUBLE_COMPLEX"
        | "MPI_COMPLEX8"
        | "MPI_COMPLEX16"
        | "MPI_COMPLEX32" => Complex,
        "MPI_BYTE" => Byte,
        "MPI_AINT" | "MPI_OFFSET" | "MPI_COUNT" => MultiLanguage,
        "MPI_FLOAT_INT"
        | "MPI_DOUBLE_INT"
        | "MPI_LONG_INT"
        | "MPI_2INT"
        | "MPI_SHORT_INT"
        | "MPI_LONG_DOUBLE_INT"
        | "MPI_2REAL"
        | "MPI_2DOUBLE_PRECISION"
        | "MPI_2INTEGER" => Pair,
        "MPI_CHAR" | "MPI_WCHAR" | "MPI_CHARACTER" => Character,
        // An MPI's own extensions.
        _ => return None,
    })
}

/// Whether MPI defines the predefined operation `op` for the basic datatype `basic`, if
/// mpicheck knows both (MPI 4.1 §6.9.2; `MPI_REPLACE`, `MPI_NO_OP`: §12.3.4).
fn defined_for(op: &str, basic: &str) -> Option<bool> {
    use TypeGroup::*;
    let groups: &[TypeGroup] = match op {
        "MPI_REPLACE" | "MPI_NO_OP" => return Some(true),
        "MPI_MAX" | "MPI_MIN" => &[CInteger, FortranInteger, FloatingPoint, MultiLanguage],
        "MPI_SUM" | "MPI_PROD" => &[
            CInteger,
            FortranInteger,
            FloatingPoint,
            Complex,
            MultiLanguage,
        ],
        "MPI_LAND" | "MPI_LOR" | "MPI_LXOR" => &[CInteger, Logical],
        "MPI_BAND" | "MPI_BOR" | "MPI_BXOR" => &[CInteger, FortranInteger, Byte, MultiLanguage],
        "MPI_MAXLOC" | "MPI_MINLOC" => &[Pair],
        _ => return None,
    };
    Some(groups.contains(&group_of(basic)?))
}

/// The types `MPI_Compare_and_swap` takes (MPI 4.1 §12.3.4.3).
fn compare_and_swap_allows(basic: &str) -> Option<bool> {
    use TypeGroup::*;
    Some(matches!(
        group_of(basic)?,
        CInteger | FortranInteger | Logical | MultiLanguage | Byte
    ))
}

/// What is wrong with one accumulate's operation and target datatype, as (message, label).
fn problem(tables: &RunTables, call: &str, access: &RmaAccess) -> Option<(String, String)> {
    if let Some(op) = &access.op {
        if !op.starts_with("MPI_") {
            return Some((
                format!("{call} is given a {op}; accumulate calls take predefined operations only"),
                "a user-defined operation".to_string(),
            ));
        }
    }
    let info = tables.datatype(access.datatype?)?;
    let layout = info.layout.as_deref()?;
    if layout.is_packed() {
        return None;
    }
    let Some(basic) = layout.uniform_basic() else {
        return Some((
            format!(
                "{call}'s target datatype {} mixes predefined types; an accumulate's datatypes must be made of one predefined type",
                info.name
            ),
            format!("target datatype {} mixes predefined types", info.name),
        ));
    };
    if access.kind == AccessKind::CompareAndSwap {
        return (!compare_and_swap_allows(basic)?).then(|| {
            (
                format!("{call} is given {basic}, which compare-and-swap does not take (integer, logical, MPI_AINT-like or MPI_BYTE elements only)"),
                format!("{basic} cannot be compared and swapped"),
            )
        });
    }
    let op = access.op.as_deref()?;
    (!defined_for(op, basic)?).then(|| {
        (
            format!("{call} applies {op} to {basic}, for which MPI does not define it"),
            format!("{op} is not defined for {basic}"),
        )
    })
}

/// What is wrong with the operation or target datatype of `access`, an RMA call named
/// `call`, if it is an accumulate: (message, label).
pub(super) fn finding(tables: &RunTables, call: &str, access: &RmaAccess) -> Option<(Text, Text)> {
    if !access.kind.is_accumulate() {
        return None;
    }
    let (message, label) = problem(tables, call, access)?;
    Some((message.into(), label.into()))
}

pub(super) fn diagnostics(found: SiteFindings, tables: &RunTables) -> Vec<Diagnostic> {
    found.diagnostics(
        tables,
        &RM009,
        &["accumulate calls apply a predefined operation element-wise to a target datatype made of one predefined type, for which the operation is defined (MPI 4.1 §12.3.4, §6.9.2)"],
        "use a predefined operation defined for the element type, build target datatypes from one predefined type, or emulate the update with MPI_Get and MPI_Put under an exclusive lock",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_are_defined_for_the_groups_of_the_standard() {
        assert_eq!(defined_for("MPI_SUM", "MPI_DOUBLE"), Some(true));
        assert_eq!(defined_for("MPI_SUM", "MPI_C_DOUBLE_COMPLEX"), Some(true));
        assert_eq!(defined_for("MPI_MAX", "MPI_C_DOUBLE_COMPLEX"), Some(false));
        assert_eq!(defined_for("MPI_BAND", "MPI_DOUBLE"), Some(false));
        assert_eq!(defined_for("MPI_BAND", "MPI_BYTE"), Some(true));
        assert_eq!(defined_for("MPI_SUM", "MPI_BYTE"), Some(false));
        assert_eq!(defined_for("MPI_LAND", "MPI_C_BOOL"), Some(true));
        assert_eq!(defined_for("MPI_LAND", "MPI_INTEGER"), Some(false));
        assert_eq!(defined_for("MPI_MAXLOC", "MPI_2INT"), Some(true));
        assert_eq!(defined_for("MPI_MAXLOC", "MPI_INT"), Some(false));
        assert_eq!(defined_for("MPI_SUM", "MPI_CHAR"), Some(false));
        assert_eq!(defined_for("MPI_REPLACE", "MPI_CHAR"), Some(true));
        assert_eq!(defined_for("MPI_SUM", "MPIX_BFLOAT16"), None);
        assert_eq!(compare_and_swap_allows("MPI_DOUBLE"), Some(false));
        assert_eq!(compare_and_swap_allows("MPI_INT64_T"), Some(true));
    }
}
