//! Several ranks as threads of one process, talking through channels.

use super::Comm;
use std::collections::VecDeque;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;

struct Message {
    from: usize,
    tag: u64,
    data: Vec<u8>,
}

pub struct ThreadComm {
    rank: usize,
    to: Vec<Sender<Message>>,
    inbox: Mutex<(Receiver<Message>, VecDeque<Message>)>,
    tag: Mutex<u64>,
}

impl ThreadComm {
    /// One communicator per rank of a group of `size`.
    pub fn group(size: usize) -> Vec<ThreadComm> {
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..size).map(|_| channel()).unzip();
        receivers
            .into_iter()
            .enumerate()
            .map(|(rank, rx)| ThreadComm {
                rank,
                to: senders.clone(),
                inbox: Mutex::new((rx, VecDeque::new())),
                tag: Mutex::new(0),
            })
            .collect()
    }

    /// The tag of the next collective: every rank calls them in the same order.
    fn next_tag(&self) -> u64 {
        let mut t = self.tag.lock().expect("tag lock");
        *t += 1;
        *t
    }

    fn send(&self, to: usize, tag: u64, data: Vec<u8>) {
        // A rank that has gone (failed) leaves the others to notice through `receive`.
        let _ = self.to[to].send(Message {
            from: self.rank,
            tag,
            data,
        });
    }

    fn receive(&self, from: usize, tag: u64) -> Vec<u8> {
        let mut inbox = self.inbox.lock().expect("inbox lock");
        if let Some(k) = inbox.1.iter().position(|m| m.from == from && m.tag == tag) {
            return inbox.1.remove(k).expect("a held message").data;
        }
        loop {
            let m = inbox
                .0
                .recv_timeout(std::time::Duration::from_secs(120))
                .unwrap_or_else(|_| {
                    panic!(
                        "rank {}: no message from rank {from} within 120 s (did it fail?)",
                        self.rank
                    )
                });
            if m.from == from && m.tag == tag {
                return m.data;
            }
            inbox.1.push_back(m);
        }
    }
}

impl Comm for ThreadComm {
    fn threads_of_one_process(&self) -> bool {
        true
    }
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.to.len()
    }
    fn exchange(&self, peers: &[usize], sends: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let tag = self.next_tag();
        for (&p, data) in peers.iter().zip(sends) {
            self.send(p, tag, data.clone());
        }
        peers.iter().map(|&p| self.receive(p, tag)).collect()
    }
    fn min_u32(&self, v: u32) -> u32 {
        let all = self.all_gather(v.to_le_bytes().to_vec());
        all.iter()
            .map(|b| u32::from_le_bytes(b[..4].try_into().expect("4 bytes")))
            .min()
            .unwrap_or(v)
    }
    fn sum_f64(&self, v: f64) -> f64 {
        // Summed in rank order on every rank, so all ranks get the same bits.
        let all = self.all_gather(v.to_le_bytes().to_vec());
        all.iter()
            .map(|b| f64::from_le_bytes(b[..8].try_into().expect("8 bytes")))
            .sum()
    }
    fn gather(&self, data: Vec<u8>) -> Option<Vec<Vec<u8>>> {
        let tag = self.next_tag();
        if self.rank != 0 {
            self.send(0, tag, data);
            return None;
        }
        let mut all = vec![data];
        all.extend((1..self.size()).map(|r| self.receive(r, tag)));
        Some(all)
    }
    fn all_gather(&self, data: Vec<u8>) -> Vec<Vec<u8>> {
        let tag = self.next_tag();
        for p in (0..self.size()).filter(|&p| p != self.rank) {
            self.send(p, tag, data.clone());
        }
        (0..self.size())
            .map(|p| {
                if p == self.rank {
                    data.clone()
                } else {
                    self.receive(p, tag)
                }
            })
            .collect()
    }
    fn abort(&self, code: i32) -> ! {
        panic!("rank {} aborted with code {code}", self.rank)
    }
}

/// Runs `f` as `ranks` ranks on threads of this process (sub-domains sharing one GPU) and
/// returns the answer of the rank that gives one (rank 0), or the first error; a rank that
/// panics is an error.
pub fn on_threads<T: Send>(
    ranks: usize,
    f: impl Fn(&ThreadComm) -> crate::error::Result<Option<T>> + Sync,
) -> crate::error::Result<T> {
    use crate::error::Error;
    let comms = ThreadComm::group(ranks);
    let results: Vec<crate::error::Result<Option<T>>> = std::thread::scope(|s| {
        let handles: Vec<_> = comms.iter().map(|c| s.spawn(|| f(c))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Gpu("a sub-domain thread panicked".into())))
            })
            .collect()
    });
    let mut answer = None;
    for r in results {
        if let Some(a) = r? {
            answer = Some(a);
        }
    }
    answer.ok_or_else(|| Error::Gpu("no answer from sub-domain 0".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collectives_agree_across_threads() {
        let comms = ThreadComm::group(3);
        let results: Vec<(u32, f64, usize, Option<usize>)> = std::thread::scope(|s| {
            let handles: Vec<_> = comms
                .iter()
                .map(|c| {
                    s.spawn(move || {
                        let r = c.rank();
                        let peers: Vec<usize> = (0..3).filter(|&p| p != r).collect();
                        let sends: Vec<Vec<u8>> =
                            peers.iter().map(|&p| vec![r as u8, p as u8]).collect();
                        let got = c.exchange(&peers, &sends);
                        for (k, &p) in peers.iter().enumerate() {
                            assert_eq!(got[k], vec![p as u8, r as u8]);
                        }
                        let m = c.min_u32(10 + r as u32);
                        let sum = c.sum_f64(0.5 * r as f64);
                        let every = c.all_gather(vec![r as u8; r + 1]);
                        assert_eq!(every, vec![vec![0], vec![1, 1], vec![2, 2, 2]]);
                        let g = c
                            .gather(vec![r as u8; r + 1])
                            .map(|all| all.iter().map(Vec::len).sum());
                        (m, sum, r, g)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (m, sum, r, g) in results {
            assert_eq!(m, 10);
            assert_eq!(sum, 1.5);
            assert_eq!(g.is_some(), r == 0);
            if let Some(total) = g {
                assert_eq!(total, 1 + 2 + 3);
            }
        }
    }
}
