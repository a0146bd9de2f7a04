//! The run's shared tables: collective arguments held once, communicators' keys and member
//! lists.

use super::super::normalize;
use super::super::tests::{call, resolve, trace, INT, WORLD};
use super::*;

/// A program repeats a few collectives many times: calls with equal arguments share one
/// copy of them, and calls with other arguments keep their own.
#[test]
fn equal_collective_arguments_are_held_once() {
    let alltoall = |count: i64, request: i64| {
        call(
            6,
            vec![0x1000, count, INT, 0x2000, count, INT, WORLD, request],
            true,
            30,
        )
    };
    let calls = vec![
        alltoall(2, 0x2c000005),
        alltoall(2, 0x2c000006),
        alltoall(3, 0x2c000007),
    ];
    let run = normalize(&[trace(0, calls)], &mut resolve).unwrap();
    let args = |index: u32| run.collective_args[&(0, index)].clone();
    assert!(Arc::ptr_eq(&args(0), &args(1)));
    assert!(!Arc::ptr_eq(&args(0), &args(2)));
    assert_eq!(args(0).send.map(|s| s.count), Some(2));
    assert_eq!(args(2).send.map(|s| s.count), Some(3));
    assert_eq!(run.collective_args_of(0, 2), Some(&*args(2)));
}

/// A communicator's key is forgotten once its last member frees it (its id and info stay);
/// a rank outside it freeing a handle of that id changes nothing.
#[test]
fn a_communicator_freed_by_every_member_loses_its_key() {
    let mut tables = Tables::new(3);
    let key = CommKey::Child {
        parent: CommId(0),
        ordinal: 1,
        members: vec![1, 2],
        remote: None,
    };
    let info = || CommInfo {
        name: "communicator from MPI_Comm_split on MPI_COMM_WORLD".into(),
        members: [1, 2].into(),
        remote: None,
    };
    let id = tables.comm(key.clone(), Seen::of(1, 1), info);
    assert_eq!(tables.comm(key.clone(), Seen::of(2, 1), info), id);
    assert!(!tables.comm_freed(id, 2));
    assert!(!tables.comm_freed(id, 0), "rank 0 is no member");
    assert!(tables.comm_ids.contains_key(&key));
    assert!(tables.comm_freed(id, 1));
    assert!(!tables.comm_ids.contains_key(&key));
    assert!(tables.unfreed.is_empty());
    assert_eq!(tables.comms[id.0 as usize], info());
    // MPI_COMM_WORLD is never forgotten.
    assert!(!tables.comm_freed(CommId(0), 0));
}

/// Communicators made over the same ranks share one member list, as they share a name.
#[test]
fn communicators_over_the_same_ranks_share_their_member_list() {
    let mut tables = Tables::new(3);
    let ids: Vec<CommId> = (1..=3)
        .map(|ordinal| {
            let key = CommKey::Child {
                parent: CommId(0),
                ordinal,
                members: vec![1, 2],
                remote: None,
            };
            tables.comm(key, Seen::of(1, ordinal), || CommInfo {
                name: "communicator from MPI_Comm_dup on MPI_COMM_WORLD".into(),
                members: vec![1, 2].into(),
                remote: Some(vec![0].into()),
            })
        })
        .collect();
    let info = |id: CommId| &tables.comms[id.0 as usize];
    assert!(Arc::ptr_eq(&info(ids[0]).members, &info(ids[2]).members));
    let remote = |id: CommId| info(id).remote.clone().unwrap();
    assert!(Arc::ptr_eq(&remote(ids[0]), &remote(ids[1])));
    assert!(Arc::ptr_eq(&info(ids[0]).name, &info(ids[1]).name));
    assert_eq!(*info(ids[1]).members, [1, 2]);
}
