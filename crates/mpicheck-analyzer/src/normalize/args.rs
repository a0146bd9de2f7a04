//! A call's arguments read by position from its words: where each parameter's input and
//! output words are is worked out once per function when no parameter before it has a
//! length of its own (arrays, arrays of statuses), and per call otherwise, so that a call is
//! not decoded into a vector of values (allocating for every array) before what the
//! normalizer needs of it is read.
//!
//! The values are those [`mpicheck_trace::schema::decode_args`] gives (a test keeps them
//! equal): the same words, the same `Missing` where the words run short, an array's count
//! is negative, or an output is read of a call that did not return.

use mpicheck_trace::schema::{Direction, FunctionSchema, ParamShape};
use mpicheck_trace::Status;

use super::plan::FunctionPlan;

/// Where one parameter's words start in a call's words ([`NONE`]: it has no such value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    input: u32,
    output: u32,
    /// `input` and `output` of a scalar parameter, [`NONE`] for others: a scalar is read
    /// (by the rules, word after word) without looking at the parameter's shape.
    int_input: u32,
    int_output: u32,
}

impl Slot {
    fn new(input: u32, output: u32, shape: ParamShape) -> Slot {
        let scalar = shape == ParamShape::Scalar;
        Slot {
            input,
            output,
            int_input: if scalar { input } else { NONE },
            int_output: if scalar { output } else { NONE },
        }
    }
}

/// No value: the input of an `out` parameter, the output of an `in` one.
const NONE: u32 = u32::MAX;

/// How a function's parameters lay out in a call's words.
pub struct WordLayout {
    shapes: Box<[ParamShape]>,
    directions: Box<[Direction]>,
    /// The slots of every call, when no parameter has a length of its own.
    fixed: Option<Box<[Slot]>>,
}

impl WordLayout {
    pub fn of(function: &FunctionSchema) -> WordLayout {
        let shapes: Box<[ParamShape]> = function.params.iter().map(|p| p.shape).collect();
        let directions: Box<[Direction]> = function.params.iter().map(|p| p.direction).collect();
        let variable = shapes
            .iter()
            .any(|s| matches!(s, ParamShape::Array | ParamShape::StatusArray));
        let mut layout = WordLayout {
            shapes,
            directions,
            fixed: None,
        };
        if !variable {
            let mut slots = Vec::new();
            layout.locate(&[], &mut slots);
            layout.fixed = Some(slots.into());
        }
        layout
    }

    /// The slots of a call whose words are `words`: the function's fixed ones, or worked out
    /// into `room` (kept from call to call).
    pub fn slots<'a>(&'a self, words: &[i64], room: &'a mut Vec<Slot>) -> &'a [Slot] {
        match &self.fixed {
            Some(fixed) => fixed,
            None => {
                self.locate(words, room);
                room
            }
        }
    }

    /// Walks the parameters as `decode_args` does, noting where each value starts. (With
    /// no arrays, the words are not read.)
    fn locate(&self, words: &[i64], slots: &mut Vec<Slot>) {
        slots.clear();
        let mut at = 0usize;
        let mut take = |shape: ParamShape| -> u32 {
            let start = at;
            at = match shape {
                ParamShape::Scalar => at.saturating_add(1),
                ParamShape::Status => at.saturating_add(4),
                ParamShape::Array => match words.get(at) {
                    Some(&n) if n >= 0 => {
                        let end = at.saturating_add(1).saturating_add(n as usize);
                        // Past the words: nothing after it can be read either.
                        if end > words.len() {
                            words.len().max(at.saturating_add(1))
                        } else {
                            end
                        }
                    }
                    _ => at.saturating_add(1),
                },
                ParamShape::StatusArray => match words.get(at) {
                    Some(&n) if n >= 0 => at
                        .saturating_add(1)
                        .saturating_add((n as usize).saturating_mul(4)),
                    _ => at.saturating_add(1),
                },
            };
            u32::try_from(start).unwrap_or(NONE - 1)
        };
        for (&shape, &direction) in self.shapes.iter().zip(&*self.directions) {
            let (input, output) = match direction {
                Direction::In => (take(shape), NONE),
                Direction::Out => (NONE, take(shape)),
                Direction::InOut => {
                    let input = take(shape);
                    (input, take(shape))
                }
            };
            slots.push(Slot::new(input, output, shape));
        }
    }
}

/// One value of a parameter, borrowed from the call's words (as
/// [`mpicheck_trace::ArgValue`], without copying arrays).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    Missing,
    Int(i64),
    Array(&'a [i64]),
    Status(Status),
    Statuses(Statuses<'a>),
}

impl<'a> Value<'a> {
    pub fn as_int(self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_array(self) -> Option<&'a [i64]> {
        match self {
            Value::Array(v) => Some(v),
            _ => None,
        }
    }

    pub fn is_missing(self) -> bool {
        self == Value::Missing
    }
}

/// Statuses as their words: four per status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Statuses<'a> {
    words: &'a [i64],
}

impl Statuses<'_> {
    pub fn len(&self) -> usize {
        self.words.len() / 4
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<Status> {
        let w = self.words.get(4 * i..4 * i + 4)?;
        Some(Status {
            source: w[0],
            tag: w[1],
            error: w[2],
            bytes: w[3],
        })
    }
}

/// One call's argument words, read by position.
#[derive(Clone, Copy)]
pub struct ArgWords<'a> {
    words: &'a [i64],
    complete: bool,
    slots: &'a [Slot],
    shapes: &'a [ParamShape],
}

impl<'a> ArgWords<'a> {
    /// The words of a call of a function laid out as `layout`, whose slots for these words
    /// are `slots` ([`WordLayout::slots`]); outputs are read only if the call `complete`d.
    pub fn new(
        layout: &'a WordLayout,
        slots: &'a [Slot],
        words: &'a [i64],
        complete: bool,
    ) -> ArgWords<'a> {
        ArgWords {
            words,
            complete,
            slots,
            shapes: &layout.shapes,
        }
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The input value of parameter `i`.
    #[inline]
    pub fn input(&self, i: usize) -> Value<'a> {
        match self.slots.get(i) {
            Some(slot) => self.value(slot.input, self.shapes[i]),
            None => Value::Missing,
        }
    }

    /// The output value of parameter `i` (`Missing` for a call that did not return).
    #[inline]
    pub fn output(&self, i: usize) -> Value<'a> {
        if !self.complete {
            return Value::Missing;
        }
        self.output_on_entry(i)
    }

    /// The output words of parameter `i` whether or not the call returned (an output
    /// buffer's address is written on entry).
    pub fn output_on_entry(&self, i: usize) -> Value<'a> {
        match self.slots.get(i) {
            Some(slot) => self.value(slot.output, self.shapes[i]),
            None => Value::Missing,
        }
    }

    /// The scalar input of parameter `i`, as `input(i).as_int()`.
    #[inline]
    pub fn int(&self, i: usize) -> Option<i64> {
        // (`NONE` is past the words of any call.)
        self.words
            .get(self.slots.get(i)?.int_input as usize)
            .copied()
    }

    /// The scalar output word of parameter `i` whether or not the call returned, as
    /// `output_on_entry(i).as_int()`.
    #[inline]
    pub fn out_int_on_entry(&self, i: usize) -> Option<i64> {
        self.words
            .get(self.slots.get(i)?.int_output as usize)
            .copied()
    }

    /// The scalar output of parameter `i`, as `output(i).as_int()`.
    #[inline]
    pub fn out_int(&self, i: usize) -> Option<i64> {
        if !self.complete {
            return None;
        }
        self.words
            .get(self.slots.get(i)?.int_output as usize)
            .copied()
    }

    #[inline]
    fn value(&self, at: u32, shape: ParamShape) -> Value<'a> {
        if at == NONE {
            return Value::Missing;
        }
        let at = at as usize;
        let words = self.words;
        match shape {
            ParamShape::Scalar => words.get(at).map_or(Value::Missing, |&v| Value::Int(v)),
            ParamShape::Status => match words.get(at..at.saturating_add(4)) {
                Some(w) => Value::Status(Status {
                    source: w[0],
                    tag: w[1],
                    error: w[2],
                    bytes: w[3],
                }),
                None => Value::Missing,
            },
            ParamShape::Array => match words.get(at) {
                Some(&n) if n >= 0 => {
                    let start = at + 1;
                    match words.get(start..start.saturating_add(n as usize)) {
                        Some(values) => Value::Array(values),
                        None => Value::Missing,
                    }
                }
                _ => Value::Missing,
            },
            ParamShape::StatusArray => match words.get(at) {
                Some(&n) if n >= 0 => {
                    let start = at + 1;
                    let end = (n as usize)
                        .checked_mul(4)
                        .and_then(|len| start.checked_add(len));
                    match end.and_then(|end| words.get(start..end)) {
                        Some(words) => Value::Statuses(Statuses { words }),
                        None => Value::Missing,
                    }
                }
                _ => Value::Missing,
            },
        }
    }
}

/// The arguments of the call being normalized, by position (from its function's plan) or,
/// on the less frequent paths, by name.
pub(super) struct Args<'a> {
    pub(super) function: &'a FunctionSchema,
    /// What depends only on the function, worked out at its first call.
    pub(super) plan: &'a FunctionPlan,
    pub(super) values: ArgWords<'a>,
}

impl<'a> Args<'a> {
    pub(super) fn position(&self, name: &str) -> Option<usize> {
        self.function.params.iter().position(|p| p.name == name)
    }
    pub(super) fn input(&self, name: &str) -> Option<Value<'a>> {
        self.position(name).map(|i| self.values.input(i))
    }
    pub(super) fn int(&self, name: &str) -> Option<i64> {
        self.values.int(self.position(name)?)
    }
    pub(super) fn out_int(&self, name: &str) -> Option<i64> {
        self.values.out_int(self.position(name)?)
    }
    /// The input array of parameter `name`.
    pub(super) fn array(&self, name: &str) -> Option<&'a [i64]> {
        self.input(name).and_then(Value::as_array)
    }
    /// The input of the parameter at `at` (a position from the plan), like [`Args::int`].
    #[inline]
    pub(super) fn int_at(&self, at: Option<usize>) -> Option<i64> {
        self.values.int(at?)
    }
    /// The output of the parameter at `at`, like [`Args::out_int`].
    #[inline]
    pub(super) fn out_int_at(&self, at: Option<usize>) -> Option<i64> {
        self.values.out_int(at?)
    }
    /// The input array of the parameter at `at`.
    pub(super) fn array_at(&self, at: Option<usize>) -> Option<&'a [i64]> {
        self.values.input(at?).as_array()
    }
    /// The output array of the parameter at `at`.
    pub(super) fn out_array_at(&self, at: Option<usize>) -> Option<&'a [i64]> {
        self.values.output(at?).as_array()
    }
    pub(super) fn status(&self) -> Option<Status> {
        match self.values.output(self.plan.p2p.status?) {
            Value::Status(s) => Some(s),
            _ => None,
        }
    }
    pub(super) fn statuses(&self) -> Option<Statuses<'a>> {
        match self.values.output(self.plan.p2p.statuses?) {
            Value::Statuses(s) => Some(s),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use mpicheck_trace::schema::{decode_args, ParamSchema};
    use mpicheck_trace::ArgValue;
    use proptest::prelude::*;

    use super::*;

    fn same(value: Value<'_>, decoded: &ArgValue) -> bool {
        match (value, decoded) {
            (Value::Missing, ArgValue::Missing) => true,
            (Value::Int(a), ArgValue::Int(b)) => a == *b,
            (Value::Array(a), ArgValue::Array(b)) => a == b.as_slice(),
            (Value::Status(a), ArgValue::Status(b)) => a == *b,
            (Value::Statuses(a), ArgValue::Statuses(b)) => {
                a.len() == b.len() && (0..a.len()).all(|i| a.get(i) == Some(b[i]))
            }
            _ => false,
        }
    }

    fn param(shape: u8, direction: u8) -> ParamSchema {
        ParamSchema {
            name: "p".into(),
            kind: "K".into(),
            direction: [Direction::In, Direction::Out, Direction::InOut][direction as usize % 3],
            shape: [
                ParamShape::Scalar,
                ParamShape::Scalar,
                ParamShape::Status,
                ParamShape::Array,
                ParamShape::StatusArray,
            ][shape as usize % 5],
            width: 8,
        }
    }

    proptest! {
        /// Every value read by position is the value `decode_args` gives: for any
        /// parameters, any words (short ones, negative and huge counts), returned or not.
        #[test]
        fn values_by_position_are_the_decoded_values(
            params in proptest::collection::vec((0u8..5, 0u8..3), 0..7),
            words in proptest::collection::vec(
                prop_oneof![-3i64..6, any::<i64>()], 0..24),
            complete in any::<bool>(),
        ) {
            let function = FunctionSchema {
                id: 0,
                name: "MPI_F".into(),
                params: params.iter().map(|&(s, d)| param(s, d)).collect(),
            };
            let layout = WordLayout::of(&function);
            let mut room = Vec::new();
            let slots = layout.slots(&words, &mut room);
            let args = ArgWords::new(&layout, slots, &words, complete);
            let decoded = decode_args(&function, &words, complete);
            let on_entry = decode_args(&function, &words, true);
            for (i, (input, output)) in decoded.iter().enumerate() {
                prop_assert!(same(args.input(i), input), "input {i}: {:?} {:?}", args.input(i), input);
                prop_assert!(same(args.output(i), output), "output {i}: {:?} {:?}", args.output(i), output);
                prop_assert!(same(args.output_on_entry(i), &on_entry[i].1));
                prop_assert_eq!(args.int(i), input.as_int());
                prop_assert_eq!(args.out_int(i), output.as_int());
                prop_assert_eq!(args.out_int_on_entry(i), on_entry[i].1.as_int());
            }
        }
    }

    #[test]
    fn a_function_without_arrays_has_fixed_slots() {
        let function = FunctionSchema {
            id: 0,
            name: "MPI_F".into(),
            params: vec![param(0, 0), param(2, 1), param(0, 2)],
        };
        let layout = WordLayout::of(&function);
        let mut room = Vec::new();
        let slots = layout.slots(&[], &mut room);
        assert_eq!(
            slots
                .iter()
                .map(|s| (s.input, s.output))
                .collect::<Vec<_>>(),
            [(0, NONE), (NONE, 1), (5, 6)]
        );
        assert!(room.is_empty());
    }
}
