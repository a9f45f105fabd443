#pragma once
// --postgres's cluster, made once: initdb under TCG took 11 to 24 s of every --postgres run, and
// the cluster it makes is the same each time. It is made on this host instead, by the same
// PostgreSQL (the guest runs this host's binaries, bind-mounted from the tools image), with the
// settings guest/postgres.sh gave initdb, and kept in iotap's cache as a tarball that goes on
// the tools image; the guest unpacks it onto the stack's file system. Keyed by the identity of
// the server, initdb and the catalog files they read: a new postgresql-15 package makes a new
// one.
#include <string>

#include "iotap/guest/postgres_guest.h"

namespace iotap::guest {

// The tarball's path for `install` in `cache_dir` (postgres-cluster-KEY.tar): holds `data/`, an
// initdb'd cluster (superuser postgres, trust, UTF8, C locale), its files owned by uid 70, the
// guest's postgres. Made when it is not there (about 1 s: initdb refuses root, so root runs it
// as nobody, in a stage under /tmp that nobody can reach; anyone else runs it as themselves),
// written under a temporary name and renamed. Throws UserError when initdb or tar fails, with
// what it said.
std::string postgres_cluster(const PostgresInstall& install, const std::string& cache_dir);

}  // namespace iotap::guest
