//! SST DUMPI binary traces (`--workload dumpi`): a run's `.meta` file and
//! its per-rank `.bin` files, read without the DUMPI library and turned into
//! rank programs ([`Workload`]): point-to-point calls become sends,
//! receives, waits and probes (wildcards kept, matched at run time), the
//! collectives are expanded like the text format's, and the recorded time
//! between calls becomes computation. The format as DUMPI 13 writes it and
//! the mapping of calls are in docs/network.md, "From DUMPI traces".

use super::workload::{Builder, Kind, Workload, ANY_SOURCE, ANY_TAG, COLLECTIVE_TAG};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Which recorded clock gives the computation between calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DumpiTime {
    /// Wall-clock time (`CLOCK_MONOTONIC`).
    #[default]
    Wall,
    /// The process's CPU time.
    Cpu,
}

/// How a DUMPI trace becomes rank programs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DumpiOptions {
    /// The clock of the compute gaps.
    pub time: DumpiTime,
    /// Every compute gap is multiplied by this (0: communication only).
    pub compute_scale: f64,
}

impl Default for DumpiOptions {
    fn default() -> Self {
        DumpiOptions { time: DumpiTime::Wall, compute_scale: 1.0 }
    }
}

/// The lead-in (and index) magic of a `.bin` file: "\xff\xaa\xddDUMPI".
const MAGIC: u64 = 0xFFAA_DD44_554D_5049;
/// The footer's magic.
const FOOTER_MAGIC: u64 = 0xF007_FEE7;
/// The record label that ends the call stream.
const END_OF_STREAM: u16 = 293;
/// Entries of the footer's count tables (`DUMPI_ALL_FUNCTIONS + 1`, DUMPI 13).
const FOOTER_COUNTS: usize = 291;
/// DUMPI's communicator ids.
const COMM_WORLD: u16 = 2;
const COMM_SELF: u16 = 3;
/// DUMPI's `MPI_REQUEST_NULL`.
const REQUEST_NULL: i32 = 1;

/// Sizes of DUMPI's predefined datatypes (ids 0..28) for a trace without a
/// size table or with 0 ("unknown") in it; x86-64 LP64 values.
pub(super) const BUILTIN_SIZES: [u32; 28] =
    [0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20];

/// DUMPI's function labels 0..290, by name.
pub(super) const NAMES: [&str; 290] = [
    "MPI_Send",
    "MPI_Recv",
    "MPI_Get_count",
    "MPI_Bsend",
    "MPI_Ssend",
    "MPI_Rsend",
    "MPI_Buffer_attach",
    "MPI_Buffer_detach",
    "MPI_Isend",
    "MPI_Ibsend",
    "MPI_Issend",
    "MPI_Irsend",
    "MPI_Irecv",
    "MPI_Wait",
    "MPI_Test",
    "MPI_Request_free",
    "MPI_Waitany",
    "MPI_Testany",
    "MPI_Waitall",
    "MPI_Testall",
    "MPI_Waitsome",
    "MPI_Testsome",
    "MPI_Iprobe",
    "MPI_Probe",
    "MPI_Cancel",
    "MPI_Test_cancelled",
    "MPI_Send_init",
    "MPI_Bsend_init",
    "MPI_Ssend_init",
    "MPI_Rsend_init",
    "MPI_Recv_init",
    "MPI_Start",
    "MPI_Startall",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    "MPI_Type_contiguous",
    "MPI_Type_vector",
    "MPI_Type_hvector",
    "MPI_Type_indexed",
    "MPI_Type_hindexed",
    "MPI_Type_struct",
    "MPI_Address",
    "MPI_Type_extent",
    "MPI_Type_size",
    "MPI_Type_lb",
    "MPI_Type_ub",
    "MPI_Type_commit",
    "MPI_Type_free",
    "MPI_Get_elements",
    "MPI_Pack",
    "MPI_Unpack",
    "MPI_Pack_size",
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Gather",
    "MPI_Gatherv",
    "MPI_Scatter",
    "MPI_Scatterv",
    "MPI_Allgather",
    "MPI_Allgatherv",
    "MPI_Alltoall",
    "MPI_Alltoallv",
    "MPI_Reduce",
    "MPI_Op_create",
    "MPI_Op_free",
    "MPI_Allreduce",
    "MPI_Reduce_scatter",
    "MPI_Scan",
    "MPI_Group_size",
    "MPI_Group_rank",
    "MPI_Group_translate_ranks",
    "MPI_Group_compare",
    "MPI_Comm_group",
    "MPI_Group_union",
    "MPI_Group_intersection",
    "MPI_Group_difference",
    "MPI_Group_incl",
    "MPI_Group_excl",
    "MPI_Group_range_incl",
    "MPI_Group_range_excl",
    "MPI_Group_free",
    "MPI_Comm_size",
    "MPI_Comm_rank",
    "MPI_Comm_compare",
    "MPI_Comm_dup",
    "MPI_Comm_create",
    "MPI_Comm_split",
    "MPI_Comm_free",
    "MPI_Comm_test_inter",
    "MPI_Comm_remote_size",
    "MPI_Comm_remote_group",
    "MPI_Intercomm_create",
    "MPI_Intercomm_merge",
    "MPI_Keyval_create",
    "MPI_Keyval_free",
    "MPI_Attr_put",
    "MPI_Attr_get",
    "MPI_Attr_delete",
    "MPI_Topo_test",
    "MPI_Cart_create",
    "MPI_Dims_create",
    "MPI_Graph_create",
    "MPI_Graphdims_get",
    "MPI_Graph_get",
    "MPI_Cartdim_get",
    "MPI_Cart_get",
    "MPI_Cart_rank",
    "MPI_Cart_coords",
    "MPI_Graph_neighbors_count",
    "MPI_Graph_neighbors",
    "MPI_Cart_shift",
    "MPI_Cart_sub",
    "MPI_Cart_map",
    "MPI_Graph_map",
    "MPI_Get_processor_name",
    "MPI_Get_version",
    "MPI_Errhandler_create",
    "MPI_Errhandler_set",
    "MPI_Errhandler_get",
    "MPI_Errhandler_free",
    "MPI_Error_string",
    "MPI_Error_class",
    "MPI_Wtime",
    "MPI_Wtick",
    "MPI_Init",
    "MPI_Finalize",
    "MPI_Initialized",
    "MPI_Abort",
    "MPI_Pcontrol",
    "MPI_Close_port",
    "MPI_Comm_accept",
    "MPI_Comm_connect",
    "MPI_Comm_disconnect",
    "MPI_Comm_get_parent",
    "MPI_Comm_join",
    "MPI_Comm_spawn",
    "MPI_Comm_spawn_multiple",
    "MPI_Lookup_name",
    "MPI_Open_port",
    "MPI_Publish_name",
    "MPI_Unpublish_name",
    "MPI_Accumulate",
    "MPI_Get",
    "MPI_Put",
    "MPI_Win_complete",
    "MPI_Win_create",
    "MPI_Win_fence",
    "MPI_Win_free",
    "MPI_Win_get_group",
    "MPI_Win_lock",
    "MPI_Win_post",
    "MPI_Win_start",
    "MPI_Win_test",
    "MPI_Win_unlock",
    "MPI_Win_wait",
    "MPI_Alltoallw",
    "MPI_Exscan",
    "MPI_Add_error_class",
    "MPI_Add_error_code",
    "MPI_Add_error_string",
    "MPI_Comm_call_errhandler",
    "MPI_Comm_create_keyval",
    "MPI_Comm_delete_attr",
    "MPI_Comm_free_keyval",
    "MPI_Comm_get_attr",
    "MPI_Comm_get_name",
    "MPI_Comm_set_attr",
    "MPI_Comm_set_name",
    "MPI_File_call_errhandler",
    "MPI_Grequest_complete",
    "MPI_Grequest_start",
    "MPI_Init_thread",
    "MPI_Is_thread_main",
    "MPI_Query_thread",
    "MPI_Status_set_cancelled",
    "MPI_Status_set_elements",
    "MPI_Type_create_keyval",
    "MPI_Type_delete_attr",
    "MPI_Type_dup",
    "MPI_Type_free_keyval",
    "MPI_Type_get_attr",
    "MPI_Type_get_contents",
    "MPI_Type_get_envelope",
    "MPI_Type_get_name",
    "MPI_Type_set_attr",
    "MPI_Type_set_name",
    "MPI_Type_match_size",
    "MPI_Win_call_errhandler",
    "MPI_Win_create_keyval",
    "MPI_Win_delete_attr",
    "MPI_Win_free_keyval",
    "MPI_Win_get_attr",
    "MPI_Win_get_name",
    "MPI_Win_set_attr",
    "MPI_Win_set_name",
    "MPI_Alloc_mem",
    "MPI_Comm_create_errhandler",
    "MPI_Comm_get_errhandler",
    "MPI_Comm_set_errhandler",
    "MPI_File_create_errhandler",
    "MPI_File_get_errhandler",
    "MPI_File_set_errhandler",
    "MPI_Finalized",
    "MPI_Free_mem",
    "MPI_Get_address",
    "MPI_Info_create",
    "MPI_Info_delete",
    "MPI_Info_dup",
    "MPI_Info_free",
    "MPI_Info_get",
    "MPI_Info_get_nkeys",
    "MPI_Info_get_nthkey",
    "MPI_Info_get_valuelen",
    "MPI_Info_set",
    "MPI_Pack_external",
    "MPI_Pack_external_size",
    "MPI_Request_get_status",
    "MPI_Type_create_darray",
    "MPI_Type_create_hindexed",
    "MPI_Type_create_hvector",
    "MPI_Type_create_indexed_block",
    "MPI_Type_create_resized",
    "MPI_Type_create_struct",
    "MPI_Type_create_subarray",
    "MPI_Type_get_extent",
    "MPI_Type_get_true_extent",
    "MPI_Unpack_external",
    "MPI_Win_create_errhandler",
    "MPI_Win_get_errhandler",
    "MPI_Win_set_errhandler",
    "MPI_File_open",
    "MPI_File_close",
    "MPI_File_delete",
    "MPI_File_set_size",
    "MPI_File_preallocate",
    "MPI_File_get_size",
    "MPI_File_get_group",
    "MPI_File_get_amode",
    "MPI_File_set_info",
    "MPI_File_get_info",
    "MPI_File_set_view",
    "MPI_File_get_view",
    "MPI_File_read_at",
    "MPI_File_read_at_all",
    "MPI_File_write_at",
    "MPI_File_write_at_all",
    "MPI_File_iread_at",
    "MPI_File_iwrite_at",
    "MPI_File_read",
    "MPI_File_read_all",
    "MPI_File_write",
    "MPI_File_write_all",
    "MPI_File_iread",
    "MPI_File_iwrite",
    "MPI_File_seek",
    "MPI_File_get_position",
    "MPI_File_get_byte_offset",
    "MPI_File_read_shared",
    "MPI_File_write_shared",
    "MPI_File_iread_shared",
    "MPI_File_iwrite_shared",
    "MPI_File_read_ordered",
    "MPI_File_write_ordered",
    "MPI_File_seek_shared",
    "MPI_File_get_position_shared",
    "MPI_File_read_at_all_begin",
    "MPI_File_read_at_all_end",
    "MPI_File_write_at_all_begin",
    "MPI_File_write_at_all_end",
    "MPI_File_read_all_begin",
    "MPI_File_read_all_end",
    "MPI_File_write_all_begin",
    "MPI_File_write_all_end",
    "MPI_File_read_ordered_begin",
    "MPI_File_read_ordered_end",
    "MPI_File_write_ordered_begin",
    "MPI_File_write_ordered_end",
    "MPI_File_get_type_extent",
    "MPI_Register_datarep",
    "MPI_File_set_atomicity",
    "MPI_File_get_atomicity",
    "MPI_File_sync",
    "MPIO_Test",
    "MPIO_Wait",
    "MPIO_Testall",
    "MPIO_Waitall",
    "MPIO_Testany",
    "MPIO_Waitany",
    "MPIO_Waitsome",
    "MPIO_Testsome",
];

/// The name of DUMPI function label `l`.
fn name(l: u16) -> String {
    match l {
        l if (l as usize) < NAMES.len() => NAMES[l as usize].to_string(),
        291 => "function enter".into(),
        292 => "function exit".into(),
        _ => format!("label {l}"),
    }
}

/// A status's fields (statuses are only read to be skipped: sources and
/// tags of wildcard receives are matched at run time, sizes come from senders).
const STATUS_BYTES: usize = 14;

/// A decoded call record.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Call {
    /// Blocking send (`Send`, `Bsend`, `Ssend`, `Rsend`): count, datatype, dest, tag, comm.
    Send {
        count: i32,
        dt: u16,
        dest: i32,
        tag: i32,
        comm: u16,
    },
    /// Non-blocking send (`Isend`, `Ibsend`, `Issend`, `Irsend`) with its request.
    Isend {
        count: i32,
        dt: u16,
        dest: i32,
        tag: i32,
        comm: u16,
        req: i32,
    },
    Recv {
        src: i32,
        tag: i32,
        comm: u16,
    },
    Irecv {
        src: i32,
        tag: i32,
        comm: u16,
        req: i32,
    },
    Sendrecv {
        count: i32,
        dt: u16,
        dest: i32,
        stag: i32,
        src: i32,
        rtag: i32,
        comm: u16,
    },
    /// `Wait`, and `Test` with `flag` (`Wait`: 1).
    Wait {
        req: i32,
        flag: i32,
    },
    /// `Waitany`/`Testany`: the requests, the completed index, the flag.
    Any {
        reqs: Vec<i32>,
        index: i32,
        flag: i32,
    },
    /// `Waitall`/`Testall`.
    All {
        reqs: Vec<i32>,
        flag: i32,
    },
    /// `Waitsome`/`Testsome`: the requests and the completed indices.
    Some {
        reqs: Vec<i32>,
        indices: Vec<i32>,
    },
    RequestFree {
        req: i32,
    },
    /// `Probe`, and `Iprobe` with `flag` (`Probe`: 1).
    Probe {
        src: i32,
        tag: i32,
        comm: u16,
        flag: i32,
    },
    Barrier {
        comm: u16,
    },
    Bcast {
        count: i32,
        dt: u16,
        root: i32,
        comm: u16,
    },
    Reduce {
        count: i32,
        dt: u16,
        root: i32,
        comm: u16,
    },
    Allreduce {
        count: i32,
        dt: u16,
        comm: u16,
    },
    Alltoall {
        count: i32,
        dt: u16,
        comm: u16,
    },
    /// `Gather`, `Gatherv`: what this rank sends to the root.
    Gather {
        count: i32,
        dt: u16,
        root: i32,
        comm: u16,
    },
    /// `Scatter`, `Scatterv`: the root's counts per rank (one for all when
    /// `Scatter`; empty on the other ranks).
    Scatter {
        counts: Vec<i32>,
        dt: u16,
        root: i32,
        comm: u16,
    },
    /// `Allgather` (`counts`: one for all), `Allgatherv`: each rank's block.
    Allgather {
        counts: Vec<i32>,
        dt: u16,
        comm: u16,
    },
    /// `Alltoallv` (send counts), `Reduce_scatter` (receive counts): what
    /// this rank sends each rank.
    Alltoallv {
        counts: Vec<i32>,
        dt: u16,
        comm: u16,
    },
    Scan {
        count: i32,
        dt: u16,
        comm: u16,
    },
    /// `Send_init` & co. (`send`) and `Recv_init`: a persistent request.
    Persistent {
        send: bool,
        count: i32,
        dt: u16,
        peer: i32,
        tag: i32,
        comm: u16,
        req: i32,
    },
    /// `Start`, `Startall`.
    Start {
        reqs: Vec<i32>,
    },
    /// `Cancel`: refused.
    Cancel,
    /// `Comm_dup` (`cart`: None) and `Cart_create` (`Some((ranks of the
    /// grid, reorder))`): `new` names what `old` does (when whole and not reordered).
    CommAlias {
        old: u16,
        new: u16,
        cart: Option<(i64, i32)>,
    },
    CommFree {
        comm: u16,
    },
    /// `Comm_split`: `new` has ranks of its own (refused where used).
    CommOther {
        new: u16,
    },
    Init,
    Finalize,
    /// A call with nothing to model (its time is computation).
    Local,
}

/// One record: its label, entry and exit times (ns of the chosen clock,
/// absent when the trace did not record it) and its call.
#[derive(Clone, Debug)]
pub(super) struct Record {
    pub(super) label: u16,
    pub(super) entry: Option<u64>,
    pub(super) exit: Option<u64>,
    pub(super) call: Call,
}

/// Big-endian reads from a `.bin` file; errors name the file and the offset.
struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
    file: &'a str,
}

impl<'a> Reader<'a> {
    fn at(b: &'a [u8], pos: usize, file: &'a str) -> Self {
        Reader { b, pos, file }
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        match self.b.get(self.pos..self.pos.saturating_add(n)) {
            Some(s) if self.pos.checked_add(n).is_some() => {
                self.pos += n;
                Ok(s)
            }
            _ => Err(format!(
                "{}: truncated or corrupt DUMPI trace: {what} at byte {} runs past the end ({} bytes)",
                self.file,
                self.pos,
                self.b.len()
            )),
        }
    }
    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, String> {
        let s = self.take(2, what)?;
        Ok(u16::from_be_bytes([s[0], s[1]]))
    }
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        let s = self.take(4, what)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn i32(&mut self, what: &str) -> Result<i32, String> {
        Ok(self.u32(what)? as i32)
    }
    fn u64(&mut self, what: &str) -> Result<u64, String> {
        let s = self.take(8, what)?;
        let mut a = [0; 8];
        a.copy_from_slice(s);
        Ok(u64::from_be_bytes(a))
    }
    /// A `u32` count of elements of `size` bytes, checked against what is left.
    fn count(&mut self, size: usize, what: &str) -> Result<usize, String> {
        let n = self.u32(what)? as usize;
        if n.saturating_mul(size) > self.b.len() - self.pos {
            return Err(format!(
                "{}: truncated or corrupt DUMPI trace: {what} at byte {} has {n} entries, more than the file holds",
                self.file,
                self.pos - 4
            ));
        }
        Ok(n)
    }
    fn ints(&mut self, what: &str) -> Result<Vec<i32>, String> {
        let n = self.count(4, what)?;
        (0..n).map(|_| self.i32(what)).collect()
    }
    fn str16(&mut self, what: &str) -> Result<(), String> {
        let n = self.u16(what)? as usize;
        self.take(n, what).map(|_| ())
    }
    fn str32(&mut self, what: &str) -> Result<(), String> {
        let n = self.count(1, what)?;
        self.take(n, what).map(|_| ())
    }
    /// A status block (present only when the record's mask says so).
    fn statuses(&mut self, stored: bool) -> Result<(), String> {
        if stored {
            let n = self.count(STATUS_BYTES, "a status array")?;
            self.take(n * STATUS_BYTES, "a status array")?;
        }
        Ok(())
    }
    fn corrupt(&self, what: String) -> String {
        format!("{}: not a DUMPI trace or corrupt: {what}", self.file)
    }
}

/// One rank's `.bin` file, decoded: its records and its datatype sizes.
pub(super) struct RankTrace {
    pub(super) records: Vec<Record>,
    pub(super) sizes: Vec<u32>,
}

/// Turns a 16-bit-seconds stamp into ns past the bias, unwrapping the
/// seconds (they wrap every 65536 s) against the previous stamp.
#[derive(Default)]
struct Clock {
    bias: u64,
    epoch: u64,
    last_s: u16,
}

impl Clock {
    fn ns(&mut self, s: u16, ns: u32) -> u64 {
        if s < self.last_s && self.last_s - s > 1 << 15 {
            self.epoch += 1;
        }
        self.last_s = s;
        ((self.bias + self.epoch * 65536 + s as u64) * 1_000_000_000) + ns as u64
    }
}

/// Decodes rank file `file` (bytes `b`).
pub(super) fn decode(b: &[u8], file: &str, time: DumpiTime) -> Result<RankTrace, String> {
    let r = Reader::at(b, 0, file);
    if b.len() < 8 + 40 || u64::from_be_bytes(b[..8].try_into().unwrap()) != MAGIC {
        return Err(r.corrupt("no DUMPI lead-in (\\xff\\xaa\\xddDUMPI) or too short".into()));
    }
    // The index: the magic again at end − 64, 56, 48 or 40, then the offsets
    // (size table, function addresses, perf labels: only in longer ones).
    let end = b.len();
    let index = [64usize, 56, 48, 40]
        .into_iter()
        .find(|&k| end >= 8 + k && u64::from_be_bytes(b[end - k..end - k + 8].try_into().unwrap()) == MAGIC)
        .ok_or_else(|| r.corrupt("no index record at its end (truncated?)".into()))?;
    let mut ix = Reader::at(b, end - index + 8, file);
    let extra = (index - 40) / 8;
    let mut offs = [0u64; 3];
    for o in offs.iter_mut().take(extra) {
        *o = ix.u64("the index")?;
    }
    let sizes_at = if extra >= 3 { offs[0] } else { 0 };
    let (header_at, body_at, footer_at) = (ix.u64("the index")?, ix.u64("the index")?, ix.u64("the index")?);
    let within = |o: u64, what: &str| {
        if o as usize >= end - index {
            Err(r.corrupt(format!("the index puts the {what} at byte {o}, past the end of the data")))
        } else {
            Ok(o as usize)
        }
    };
    let (header_at, body_at) = (within(header_at, "header")?, within(body_at, "call stream")?);
    if body_at == 0 || header_at == 0 {
        return Err(r.corrupt("the index has no header or no call stream".into()));
    }
    // The header: version and start time, host and user names, mesh arrays.
    let mut h = Reader::at(&b[..end - index], header_at, file);
    let version = (h.u8("the header")?, h.u8("the header")?, h.u8("the header")?);
    h.u64("the header")?;
    h.str16("the header's host name")?;
    h.str16("the header's user name")?;
    h.ints("the header's mesh coordinates")?;
    h.ints("the header's mesh size")?;
    // The datatype sizes.
    let mut sizes = BUILTIN_SIZES.to_vec();
    if sizes_at > 0 {
        let mut s = Reader::at(&b[..end - index], within(sizes_at, "datatype sizes")?, file);
        let n = s.count(4, "the datatype sizes")?;
        for i in 0..n {
            let size = s.i32("the datatype sizes")?;
            if i >= sizes.len() {
                sizes.push(0);
            }
            if size > 0 {
                sizes[i] = size as u32;
            }
        }
    }
    // The footer: per-label call counts, checked against the stream.
    let mut counts = None;
    if footer_at > 0 {
        let mut f = Reader::at(&b[..end - index], within(footer_at, "footer")?, file);
        if f.u64("the footer")? != FOOTER_MAGIC {
            return Err(r.corrupt(format!("the footer at byte {footer_at} lacks its magic")));
        }
        if version.0 == 13 {
            counts =
                Some((0..FOOTER_COUNTS).map(|_| f.u32("the footer's call counts")).collect::<Result<Vec<_>, _>>()?);
        }
    }
    // The call stream, up to the header.
    let mut s = Reader::at(&b[..header_at], body_at, file);
    let cpu_bias = s.u32("the call stream's clock biases")? as u64;
    let wall_bias = s.u32("the call stream's clock biases")? as u64;
    let mut clock = match time {
        DumpiTime::Wall => Clock { bias: wall_bias, ..Clock::default() },
        DumpiTime::Cpu => Clock { bias: cpu_bias, ..Clock::default() },
    };
    let mut records = vec![];
    let mut seen = vec![0u32; FOOTER_COUNTS];
    loop {
        let label = s.u16("a call record")?;
        if label == END_OF_STREAM {
            break;
        }
        let n = records.len() + 1;
        let mask = s.u8("a call record")?;
        if mask & 0x40 != 0 {
            s.u16("a record's thread")?;
        }
        let mut times = [None, None];
        for (bit, clk) in [(0x04, DumpiTime::Cpu), (0x08, DumpiTime::Wall)] {
            if mask & bit != 0 {
                let (a, an, z, zn) = (s.u16("a time")?, s.u32("a time")?, s.u16("a time")?, s.u32("a time")?);
                if clk == time {
                    times = [Some(clock.ns(a, an)), Some(clock.ns(z, zn))];
                }
            }
        }
        if mask & 0x80 != 0 {
            let k = s.u8("a record's counters")? as usize;
            s.take(16 * k, "a record's counters")?;
        }
        let st = mask & 0x03 != 0;
        let call = args(&mut s, label, st).map_err(|e| e.unwrap_or_else(|| format!(
            "{file}: call {n} is {}, which this reader cannot read (its record layout is not implemented), so the trace cannot be replayed",
            name(label)
        )))?;
        if let Some(c) = seen.get_mut(label as usize) {
            *c += 1;
        }
        records.push(Record { label, entry: times[0], exit: times[1], call });
    }
    if let Some(counts) = counts {
        if let Some(l) = (0..FOOTER_COUNTS - 1).find(|&l| counts[l] != seen[l]) {
            return Err(r.corrupt(format!(
                "its footer counts {} {} calls, its call stream has {}",
                counts[l],
                name(l as u16),
                seen[l]
            )));
        }
    }
    Ok(RankTrace { records, sizes })
}

/// Reads past the arguments of a local call, `form` naming them in order:
/// `i` i32, `s` u16 (handles), `b` u8 (ops), `S` a string (u32 length),
/// `A` an i32 array, `T` a datatype array (u32 count, u16 each), `P` a
/// status block.
fn skip(s: &mut Reader<'_>, form: &str, st: bool) -> Result<Call, String> {
    let a = "a call's arguments";
    for c in form.chars() {
        match c {
            'i' => s.i32(a).map(drop)?,
            's' => s.u16(a).map(drop)?,
            'b' => s.u8(a).map(drop)?,
            'S' => s.str32(a)?,
            'A' => s.ints(a).map(drop)?,
            'T' => {
                let n = s.count(2, a)?;
                s.take(2 * n, a)?;
            }
            _ => s.statuses(st)?,
        }
    }
    Ok(Call::Local)
}

/// A record's arguments (`Err(None)`: a label whose layout is not known here).
fn args(s: &mut Reader<'_>, label: u16, st: bool) -> Result<Call, Option<String>> {
    let a = "a call's arguments";
    let c = match label {
        0 | 3 | 4 | 5 => {
            Call::Send { count: s.i32(a)?, dt: s.u16(a)?, dest: s.i32(a)?, tag: s.i32(a)?, comm: s.u16(a)? }
        }
        8..=11 => Call::Isend {
            count: s.i32(a)?,
            dt: s.u16(a)?,
            dest: s.i32(a)?,
            tag: s.i32(a)?,
            comm: s.u16(a)?,
            req: s.i32(a)?,
        },
        1 => {
            let (_, _, src, tag, comm) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.i32(a)?, s.u16(a)?);
            s.statuses(st)?;
            Call::Recv { src, tag, comm }
        }
        12 => {
            let (_, _, src, tag, comm, req) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.i32(a)?, s.u16(a)?, s.i32(a)?);
            Call::Irecv { src, tag, comm, req }
        }
        2 => {
            s.statuses(st)?;
            s.u16(a)?;
            s.i32(a)?;
            Call::Local
        }
        13 => {
            let req = s.i32(a)?;
            s.statuses(st)?;
            Call::Wait { req, flag: 1 }
        }
        14 => {
            let (req, flag) = (s.i32(a)?, s.i32(a)?);
            s.statuses(st)?;
            Call::Wait { req, flag }
        }
        15 => Call::RequestFree { req: s.i32(a)? },
        16 | 17 => {
            s.i32(a)?;
            let reqs = s.ints(a)?;
            let index = s.i32(a)?;
            let flag = if label == 17 { s.i32(a)? } else { 1 };
            s.statuses(st)?;
            Call::Any { reqs, index, flag }
        }
        18 | 19 => {
            s.i32(a)?;
            let reqs = s.ints(a)?;
            let flag = if label == 19 { s.i32(a)? } else { 1 };
            s.statuses(st)?;
            Call::All { reqs, flag }
        }
        20 | 21 => {
            s.i32(a)?;
            let reqs = s.ints(a)?;
            s.i32(a)?;
            let indices = s.ints(a)?;
            s.statuses(st)?;
            Call::Some { reqs, indices }
        }
        22 | 23 => {
            let (src, tag, comm) = (s.i32(a)?, s.i32(a)?, s.u16(a)?);
            let flag = if label == 22 { s.i32(a)? } else { 1 };
            s.statuses(st)?;
            Call::Probe { src, tag, comm, flag }
        }
        33 => {
            let (count, dt, dest, stag) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.i32(a)?);
            let (_, _, src, rtag, comm) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.i32(a)?, s.u16(a)?);
            s.statuses(st)?;
            Call::Sendrecv { count, dt, dest, stag, src, rtag, comm }
        }
        52 => Call::Barrier { comm: s.u16(a)? },
        53 => Call::Bcast { count: s.i32(a)?, dt: s.u16(a)?, root: s.i32(a)?, comm: s.u16(a)? },
        60 => {
            let (count, dt, _, _, comm) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?, s.u16(a)?);
            Call::Alltoall { count, dt, comm }
        }
        62 => {
            let (count, dt, _, root, comm) = (s.i32(a)?, s.u16(a)?, s.u8(a)?, s.i32(a)?, s.u16(a)?);
            Call::Reduce { count, dt, root, comm }
        }
        65 => {
            let (count, dt, _, comm) = (s.i32(a)?, s.u16(a)?, s.u8(a)?, s.u16(a)?);
            Call::Allreduce { count, dt, comm }
        }
        24 => {
            s.i32(a)?;
            Call::Cancel
        }
        25 => {
            s.statuses(st)?;
            s.i32(a)?;
            Call::Local
        }
        26..=30 => Call::Persistent {
            send: label != 30,
            count: s.i32(a)?,
            dt: s.u16(a)?,
            peer: s.i32(a)?,
            tag: s.i32(a)?,
            comm: s.u16(a)?,
            req: s.i32(a)?,
        },
        31 => Call::Start { reqs: vec![s.i32(a)?] },
        32 => {
            s.i32(a)?;
            Call::Start { reqs: s.ints(a)? }
        }
        34 => {
            let (count, dt, dest, stag) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.i32(a)?);
            let (src, rtag, comm) = (s.i32(a)?, s.i32(a)?, s.u16(a)?);
            s.statuses(st)?;
            Call::Sendrecv { count, dt, dest, stag, src, rtag, comm }
        }
        // Datatype constructors and queries, Address, Pack, Unpack, Op
        // and Group queries: local.
        35 => skip(s, "iss", st)?,
        36 | 37 => skip(s, "iiiss", st)?,
        38 | 39 => skip(s, "iAAss", st)?,
        40 => skip(s, "iAATs", st)?,
        41 => skip(s, "i", st)?,
        42..=45 | 68 | 69 => skip(s, "si", st)?,
        46 | 47 => skip(s, "s", st)?,
        48 => skip(s, "Psi", st)?,
        49 => skip(s, "isiiis", st)?,
        50 => skip(s, "iiiiss", st)?,
        51 => skip(s, "issi", st)?,
        63 => skip(s, "ib", st)?,
        64 => skip(s, "b", st)?,
        54 => {
            let (me, count, dt, root, comm) = (s.i32(a)?, s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?);
            if me == root {
                skip(s, "is", st)?;
            }
            Call::Gather { count, dt, root, comm }
        }
        55 => {
            let (me, _, count, dt, root, comm) = (s.i32(a)?, s.i32(a)?, s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?);
            if me == root {
                skip(s, "AA", st)?;
            }
            s.u16(a)?;
            Call::Gather { count, dt, root, comm }
        }
        56 => {
            let (me, _, _, root, comm) = (s.i32(a)?, s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?);
            let (counts, dt) = if me == root { (vec![s.i32(a)?], s.u16(a)?) } else { (vec![], 0) };
            Call::Scatter { counts, dt, root, comm }
        }
        57 => {
            let (me, _, dt) = (s.i32(a)?, s.i32(a)?, s.u16(a)?);
            let (_, _, root, comm) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?);
            let mut counts = vec![];
            if me == root {
                counts = s.ints(a)?;
                s.ints(a)?;
            }
            Call::Scatter { counts, dt, root, comm }
        }
        58 => {
            let (count, dt, _, _, comm) = (s.i32(a)?, s.u16(a)?, s.i32(a)?, s.u16(a)?, s.u16(a)?);
            Call::Allgather { counts: vec![count], dt, comm }
        }
        59 => {
            let (_, _, _, counts) = (s.i32(a)?, s.i32(a)?, s.u16(a)?, s.ints(a)?);
            let (_, dt, comm) = (s.ints(a)?, s.u16(a)?, s.u16(a)?);
            Call::Allgather { counts, dt, comm }
        }
        61 => {
            let (_, counts, _, dt) = (s.i32(a)?, s.ints(a)?, s.ints(a)?, s.u16(a)?);
            let (_, _, _, comm) = (s.ints(a)?, s.ints(a)?, s.u16(a)?, s.u16(a)?);
            Call::Alltoallv { counts, dt, comm }
        }
        66 => {
            let (_, counts, dt, _, comm) = (s.i32(a)?, s.ints(a)?, s.u16(a)?, s.u8(a)?, s.u16(a)?);
            Call::Alltoallv { counts, dt, comm }
        }
        67 => {
            let (count, dt, _, comm) = (s.i32(a)?, s.u16(a)?, s.u8(a)?, s.u16(a)?);
            Call::Scan { count, dt, comm }
        }
        83 => skip(s, "ssb", st)?,
        84 => Call::CommAlias { old: s.u16(a)?, new: s.u16(a)?, cart: None },
        86 => {
            s.u16(a)?;
            s.i32(a)?;
            s.i32(a)?;
            Call::CommOther { new: s.u16(a)? }
        }
        114 => skip(s, "Si", st)?,
        115 => skip(s, "ii", st)?,
        123 => Call::Local,
        126 => skip(s, "i", st)?,
        87 => Call::CommFree { comm: s.u16(a)? },
        88 | 104 => skip(s, "si", st)?,
        96 => skip(s, "sii", st)?,
        99 => {
            let (old, _, dims, _, reorder, new) = (s.u16(a)?, s.i32(a)?, s.ints(a)?, s.ints(a)?, s.i32(a)?, s.u16(a)?);
            let ranks = dims.iter().map(|&d| d as i64).product();
            Call::CommAlias { old, new, cart: Some((ranks, reorder)) }
        }
        100 => skip(s, "iiAA", st)?,
        105 => skip(s, "isiAAA", st)?,
        106 => skip(s, "isAi", st)?,
        107 => skip(s, "isiiA", st)?,
        110 => skip(s, "siiii", st)?,
        81 | 82 => {
            s.u16(a)?;
            s.i32(a)?;
            Call::Local
        }
        122 => Call::Local,
        124 => {
            let n = s.count(4, a)?;
            for _ in 0..n {
                s.str32(a)?;
            }
            Call::Init
        }
        125 => Call::Finalize,
        171 => {
            let n = s.count(4, a)?;
            for _ in 0..n {
                s.str32(a)?;
            }
            s.u8(a)?;
            s.u8(a)?;
            Call::Init
        }
        172 => skip(s, "i", st)?,
        173 => skip(s, "b", st)?,
        178 | 197 => skip(s, "ss", st)?,
        195 => skip(s, "is", st)?,
        _ => return Err(None),
    };
    Ok(c)
}

/// The `.meta` file of `--trace-dir` (the path itself when it is one).
fn meta_file(path: &Path) -> Result<PathBuf, String> {
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    let entries = std::fs::read_dir(path).map_err(|e| format!("--trace-dir {}: {e}", path.display()))?;
    let mut metas: Vec<PathBuf> =
        entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "meta")).collect();
    metas.sort();
    match metas.len() {
        1 => Ok(metas.remove(0)),
        0 => Err(format!("--trace-dir {} holds no DUMPI .meta file (dumpi-<stamp>.meta)", path.display())),
        n => Err(format!(
            "--trace-dir {} holds {n} DUMPI .meta files ({}, ...); give one of them as --trace-dir",
            path.display(),
            metas[0].display()
        )),
    }
}

/// What a rank does with its requests while its program is built.
#[derive(Default)]
struct Requests {
    /// DUMPI request id → the rank's request number (`None`: one that
    /// completes at once, to or from `MPI_PROC_NULL`).
    of: HashMap<i32, Option<u32>>,
    /// Request numbers handed out (receives, collectives' included, and
    /// non-blocking sends take one), counted over the first `seen` operations.
    next: u32,
    seen: usize,
    /// Non-blocking requests not yet waited for (as the rank's
    /// run-time list, which a `WaitAll` empties).
    open: BTreeSet<u32>,
    /// Persistent requests (`MPI_*_init`) by DUMPI id: what `MPI_Start` posts.
    persistent: HashMap<i32, Call>,
}

impl Requests {
    /// Counts the request numbers that the operations pushed since the last
    /// call take; the number of the last one.
    fn sync(&mut self, ops: &[super::workload::Op]) -> u32 {
        for o in &ops[self.seen..] {
            self.next += matches!(o.kind, Kind::Recv { .. } | Kind::Send { blocking: false, .. }) as u32;
        }
        self.seen = ops.len();
        self.next.wrapping_sub(1)
    }
}

impl Workload {
    /// Reads a DUMPI run: `dir` holds one `.meta` file (or is one), its
    /// `<fileprefix>-NNNN.bin` files lie beside it. Errors are one line
    /// naming the file, or the rank and the call that cannot be replayed.
    pub fn read_dumpi(dir: &Path, opt: &DumpiOptions) -> Result<Workload, String> {
        let meta = meta_file(dir)?;
        let text = std::fs::read_to_string(&meta).map_err(|e| format!("{}: {e}", meta.display()))?;
        let mut keys = BTreeMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match line.split_once('=') {
                Some((k, v)) => keys.insert(k.trim(), v.trim()),
                None => {
                    return Err(format!("{}: not a DUMPI .meta file: line '{line}' is not key=value", meta.display()))
                }
            };
        }
        let get = |k: &str| {
            keys.get(k).copied().ok_or_else(|| format!("{}: not a DUMPI .meta file: no '{k}='", meta.display()))
        };
        let p: u32 = get("numprocs")?
            .parse()
            .ok()
            .filter(|&p| p > 0)
            .ok_or_else(|| format!("{}: numprocs must be a whole number >= 1", meta.display()))?;
        let prefix = get("fileprefix")?;
        let base = meta.parent().unwrap_or(Path::new("."));
        let mut traces = vec![];
        for r in 0..p {
            let f = base.join(format!("{prefix}-{r:04}.bin"));
            let b = std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            traces.push(decode(&b, &format!("{} (rank {r})", f.display()), opt.time)?);
        }
        convert(&traces, opt, meta.display().to_string())
    }
}

/// Builds the rank programs from the decoded traces.
pub(super) fn convert(traces: &[RankTrace], opt: &DumpiOptions, title: String) -> Result<Workload, String> {
    let p = traces.len() as u32;
    let mut b = Builder::new(p);
    // Calls not modelled, by name, over all ranks.
    let mut skipped: BTreeMap<String, u64> = BTreeMap::new();
    for (r, t) in traces.iter().enumerate() {
        let r = r as u32;
        let mut q = Requests::default();
        // Communicators that name MPI_COMM_WORLD's ranks: it and its duplicates.
        let mut worlds: BTreeSet<u16> = [COMM_WORLD].into();
        // The end of the last call modelled (Init's exit: the program starts there).
        let mut anchor: Option<u64> = None;
        'records: for (i, rec) in t.records.iter().enumerate() {
            let line = i as u32 + 1;
            let call = name(rec.label);
            // Communicators this record makes (true) or frees (false) a
            // name of MPI_COMM_WORLD, applied after it.
            let mut comms: Vec<(u16, bool)> = vec![];
            let refuse = |why: String| format!("rank {r}: {call} (call {line}) {why}");
            let bytes = |count: i32, dt: u16| -> Result<u32, String> {
                let size = *t.sizes.get(dt as usize).unwrap_or(&0) as u64;
                if size == 0 && count > 0 {
                    return Err(refuse(format!("uses datatype {dt}, whose size the trace does not give")));
                }
                u32::try_from(count.max(0) as u64 * size)
                    .map_err(|_| refuse(format!("moves {count} x {size} bytes, more than 2^32")))
            };
            let world = |comm: u16| {
                if worlds.contains(&comm) {
                    Ok(true)
                } else if comm == COMM_SELF {
                    Ok(false)
                } else {
                    Err(refuse(format!(
                        "uses communicator {comm}: only MPI_COMM_WORLD and its duplicates are modelled"
                    )))
                }
            };
            // A peer rank: `None` for MPI_PROC_NULL (negative, but not ANY_SOURCE).
            let peer = |x: i32, what: &str| -> Result<Option<u32>, String> {
                if x < 0 {
                    return Ok(None);
                }
                if x as u32 >= p {
                    return Err(refuse(format!("names {what} {x}, not a rank of the trace's {p}")));
                }
                Ok(Some(x as u32))
            };
            let tag = |x: i32, any: bool| -> Result<u32, String> {
                match x {
                    -1 if any => Ok(ANY_TAG),
                    x if x >= 0 && (x as u32) < COLLECTIVE_TAG => Ok(x as u32),
                    _ => Err(refuse(format!("has tag {x}"))),
                }
            };
            let source = |x: i32| if x == -1 { Ok(Some(ANY_SOURCE)) } else { peer(x, "source") };
            // A rooted collective's root (`None`: on MPI_COMM_SELF, nothing to do).
            let rooted = |comm: u16, root: i32| -> Result<Option<u32>, String> {
                if !world(comm)? {
                    return Ok(None);
                }
                if root < 0 || root as u32 >= p {
                    return Err(refuse(format!("has root {root}, not a rank of the trace's {p}")));
                }
                Ok(Some(root as u32))
            };
            // Bytes per rank from one count for all or one per rank (`needed`:
            // this rank uses them).
            let per_rank = |counts: &[i32], dt: u16, needed: bool| -> Result<Vec<u32>, String> {
                match counts.len() {
                    _ if !needed => Ok(vec![]),
                    1 => Ok(vec![bytes(counts[0], dt)?; p as usize]),
                    n if n == p as usize => counts.iter().map(|&c| bytes(c, dt)).collect(),
                    n => Err(refuse(format!("has {n} counts for the trace's {p} ranks"))),
                }
            };
            // The computation since the last modelled call ends at this call's entry.
            let gap = |b: &mut Builder, anchor: &mut Option<u64>| {
                if let (Some(a), Some(e)) = (*anchor, rec.entry) {
                    let ns = e.saturating_sub(a) as f64 * opt.compute_scale;
                    if ns > 0.0 {
                        b.push(r, Kind::Compute(ns), line, "");
                    }
                }
                *anchor = rec.exit;
            };
            let mut skip = |what: String| *skipped.entry(what).or_insert(0) += 1;
            // Waits for request `id` of DUMPI (nothing for MPI_REQUEST_NULL
            // and those to or from MPI_PROC_NULL).
            let wait = |b: &mut Builder, q: &mut Requests, ids: &[i32]| -> Result<(), String> {
                let mut mine = vec![];
                for &id in ids {
                    if id == REQUEST_NULL {
                        continue;
                    }
                    match q.of.remove(&id) {
                        Some(Some(n)) => mine.push(n),
                        Some(None) => {}
                        None => return Err(refuse(format!("waits for request {id}, which no modelled call started"))),
                    }
                }
                // The requests named are open and distinct (each left `of`
                // as it was taken): all of them when as many as are open.
                if !mine.is_empty() && mine.len() == q.open.len() {
                    b.push(r, Kind::WaitAll, line, "");
                } else {
                    for &n in &mine {
                        b.push(r, Kind::WaitReq(n), line, "");
                    }
                }
                for n in &mine {
                    q.open.remove(n);
                }
                Ok(())
            };
            // Start: the persistent requests' operations, as Isend/Irecv.
            let started: Vec<Call>;
            let calls = match &rec.call {
                Call::Start { reqs } => {
                    started = reqs
                        .iter()
                        .map(|id| match q.persistent.get(id) {
                            Some(&Call::Persistent { send: true, count, dt, peer, tag, comm, req }) => {
                                Ok(Call::Isend { count, dt, dest: peer, tag, comm, req })
                            }
                            Some(&Call::Persistent { send: false, peer, tag, comm, req, .. }) => {
                                Ok(Call::Irecv { src: peer, tag, comm, req })
                            }
                            _ => Err(refuse(format!("starts request {id}, which no MPI_*_init call made"))),
                        })
                        .collect::<Result<_, _>>()?;
                    &started[..]
                }
                c => std::slice::from_ref(c),
            };
            for c in calls {
                match *c {
                    Call::Init => anchor = rec.exit,
                    Call::Finalize => {
                        gap(&mut b, &mut anchor);
                        break 'records;
                    }
                    Call::Local => skip(call.clone()),
                    Call::Send { count, dt, dest, tag: t, comm }
                    | Call::Isend { count, dt, dest, tag: t, comm, .. } => {
                        let blocking = matches!(*c, Call::Send { .. });
                        let (_, n, t) = (world(comm)?, bytes(count, dt)?, tag(t, false)?);
                        let dest = peer(dest, "destination")?;
                        gap(&mut b, &mut anchor);
                        if let Some(d) = dest {
                            b.send(r, d, n, t, blocking, (line, ""));
                        }
                        if let Call::Isend { req, .. } = *c {
                            let last = q.sync(&b.ops[r as usize]);
                            let mine = dest.map(|_| last);
                            q.open.extend(mine);
                            q.of.insert(req, mine);
                        }
                    }
                    Call::Recv { src, tag: t, comm } | Call::Irecv { src, tag: t, comm, .. } => {
                        let blocking = matches!(*c, Call::Recv { .. });
                        let (_, src, t) = (world(comm)?, source(src)?, tag(t, true)?);
                        gap(&mut b, &mut anchor);
                        let mine = src.map(|s| {
                            b.push(r, Kind::Recv { src: s, tag: t, blocking }, line, "");
                            q.sync(&b.ops[r as usize])
                        });
                        if let Call::Irecv { req, .. } = *c {
                            q.open.extend(mine);
                            q.of.insert(req, mine);
                        }
                    }
                    Call::Sendrecv { count, dt, dest, stag, src, rtag, comm } => {
                        world(comm)?;
                        let (n, st, rt) = (bytes(count, dt)?, tag(stag, false)?, tag(rtag, true)?);
                        let (dest, src) = (peer(dest, "destination")?, source(src)?);
                        gap(&mut b, &mut anchor);
                        if let Some(d) = dest {
                            b.send(r, d, n, st, true, (line, ""));
                        }
                        if let Some(s) = src {
                            b.push(r, Kind::Recv { src: s, tag: rt, blocking: true }, line, "");
                        }
                    }
                    Call::Wait { req, flag } => {
                        if flag == 0 {
                            skip(format!("{call} (not complete)"));
                        } else {
                            gap(&mut b, &mut anchor);
                            wait(&mut b, &mut q, &[req])?;
                        }
                    }
                    Call::Any { ref reqs, index, flag } => match reqs.get(index.max(0) as usize) {
                        Some(&req) if flag != 0 && index >= 0 => {
                            gap(&mut b, &mut anchor);
                            wait(&mut b, &mut q, &[req])?;
                        }
                        _ => skip(format!("{call} (none complete)")),
                    },
                    Call::All { ref reqs, flag } => {
                        if flag == 0 {
                            skip(format!("{call} (not complete)"));
                        } else {
                            gap(&mut b, &mut anchor);
                            wait(&mut b, &mut q, reqs)?;
                        }
                    }
                    Call::Some { ref reqs, ref indices } => {
                        let done: Vec<i32> =
                            indices.iter().filter_map(|&i| reqs.get(i.max(0) as usize).copied()).collect();
                        if done.is_empty() {
                            skip(format!("{call} (none complete)"));
                        } else {
                            gap(&mut b, &mut anchor);
                            wait(&mut b, &mut q, &done)?;
                        }
                    }
                    Call::RequestFree { req } => {
                        // Freed, never waited for: it stays open in the rank.
                        q.of.remove(&req);
                        q.persistent.remove(&req);
                        skip(call.clone());
                    }
                    Call::Probe { src, tag: t, comm, flag } => {
                        let (_, src, t) = (world(comm)?, source(src)?, tag(t, true)?);
                        if flag == 0 {
                            skip(format!("{call} (nothing found)"));
                        } else if let Some(s) = src {
                            gap(&mut b, &mut anchor);
                            b.push(r, Kind::Probe { src: s, tag: t }, line, "");
                        }
                    }
                    Call::Barrier { comm } => {
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            b.barrier(r, p, line);
                        }
                    }
                    Call::Bcast { count, dt, root, comm } | Call::Reduce { count, dt, root, comm } => {
                        let n = bytes(count, dt)?;
                        if world(comm)? {
                            if root < 0 || root as u32 >= p {
                                return Err(refuse(format!("has root {root}, not a rank of the trace's {p}")));
                            }
                            gap(&mut b, &mut anchor);
                            if matches!(*c, Call::Bcast { .. }) {
                                b.bcast(r, p, root as u32, n, line);
                            } else {
                                b.reduce(r, p, root as u32, n, line);
                            }
                        }
                    }
                    Call::Allreduce { count, dt, comm } => {
                        let n = bytes(count, dt)?;
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            b.allreduce(r, p, n, line);
                        }
                    }
                    Call::Alltoall { count, dt, comm } => {
                        let n = bytes(count, dt)?;
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            b.alltoall(r, p, n, line);
                        }
                    }
                    Call::Gather { count, dt, root, comm } => {
                        let n = bytes(count, dt)?;
                        if let Some(root) = rooted(comm, root)? {
                            gap(&mut b, &mut anchor);
                            let tag = b.collective_tag(r);
                            if r != root {
                                b.send(r, root, n, tag, true, (line, "gather"));
                            }
                            for i in (0..p).filter(|&i| r == root && i != root) {
                                b.push(r, Kind::Recv { src: i, tag, blocking: true }, line, "gather");
                            }
                        }
                    }
                    Call::Scatter { ref counts, dt, root, comm } => {
                        if let Some(root) = rooted(comm, root)? {
                            let n = per_rank(counts, dt, r == root)?;
                            gap(&mut b, &mut anchor);
                            let tag = b.collective_tag(r);
                            for i in (0..p).filter(|&i| r == root && i != root) {
                                b.send(r, i, n[i as usize], tag, true, (line, "scatter"));
                            }
                            if r != root {
                                b.push(r, Kind::Recv { src: root, tag, blocking: true }, line, "scatter");
                            }
                        }
                    }
                    Call::Allgather { ref counts, dt, comm } => {
                        let n = per_rank(counts, dt, true)?;
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            let tag = b.collective_tag(r);
                            // The ring: in step s, the block of rank r − s goes to r + 1.
                            for s in 0..p.saturating_sub(1) {
                                let block = n[((r + p - s) % p) as usize];
                                b.send(r, (r + 1) % p, block, tag, true, (line, "allgather"));
                                b.push(r, Kind::Recv { src: (r + p - 1) % p, tag, blocking: true }, line, "allgather");
                            }
                        }
                    }
                    Call::Alltoallv { ref counts, dt, comm } => {
                        let what = if rec.label == 66 { "reduce_scatter" } else { "alltoallv" };
                        let n = per_rank(counts, dt, true)?;
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            let tag = b.collective_tag(r);
                            for i in 1..p {
                                b.send(r, (r + i) % p, n[((r + i) % p) as usize], tag, true, (line, what));
                                b.push(r, Kind::Recv { src: (r + p - i) % p, tag, blocking: true }, line, what);
                            }
                        }
                    }
                    Call::Scan { count, dt, comm } => {
                        let n = bytes(count, dt)?;
                        if world(comm)? {
                            gap(&mut b, &mut anchor);
                            let tag = b.collective_tag(r);
                            if r > 0 {
                                b.push(r, Kind::Recv { src: r - 1, tag, blocking: true }, line, "scan");
                            }
                            if r + 1 < p {
                                b.send(r, r + 1, n, tag, true, (line, "scan"));
                            }
                        }
                    }
                    Call::Persistent { req, .. } => {
                        q.persistent.insert(req, c.clone());
                    }
                    Call::Start { .. } => unreachable!("Start is expanded above"),
                    Call::CommAlias { old, new, cart } => {
                        let whole = cart.map_or(true, |(ranks, reorder)| ranks == p as i64 && reorder == 0);
                        comms.push((new, worlds.contains(&old) && whole));
                        skip(call.clone());
                    }
                    Call::CommOther { new } => {
                        comms.push((new, false));
                        skip(call.clone());
                    }
                    Call::CommFree { comm } => {
                        if comm != COMM_WORLD {
                            comms.push((comm, false));
                        }
                        skip(call.clone());
                    }
                    Call::Cancel => {
                        return Err(refuse("is not modelled: a cancelled message cannot be replayed".into()))
                    }
                }
            }
            for (comm, world) in comms {
                if world {
                    worlds.insert(comm);
                } else {
                    worlds.remove(&comm);
                }
            }
        }
    }
    let mut w = b.finish(title);
    w.unit = "call";
    if !skipped.is_empty() {
        let list: Vec<String> = skipped.iter().map(|(k, n)| format!("{k} x{n}")).collect();
        w.notes.push(format!("note: DUMPI calls not modelled (their time counts as computation): {}", list.join(", ")));
    }
    Ok(w)
}
