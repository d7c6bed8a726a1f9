/* The reads a plan of up-to-date sessions cannot do without, and nothing
 * else: a lower bound for any implementation of `plan` that makes them
 * (docs/performance.md, "What any plan at 500 must read").
 *
 *   bench-reads-floor THREADS PID_FIELD [DIR...] -- LISTING_ARGV...
 *
 * It runs LISTING_ARGV (a tmux listing, run directly, no shell), takes the
 * pid in tab-separated field PID_FIELD (1-based) of each line that has
 * one, and reads, whole, each such process's environ, cmdline and stat;
 * every process's stat (the detached and unmanaged scans); and every file
 * in each DIR (the registry's records, the activity files). It parses
 * nothing and keeps nothing. With THREADS 2 the process table and the DIRs
 * are read on a second thread while tmux answers, and the panes are split
 * across two threads once it has. With THREADS 3 (the overlap `plan` has)
 * one thread reads the process table and, as it meets them, the environ
 * and cmdline of every tmux server's child (every pane's process), a
 * second the DIRs, while tmux answers; what the listing names that was not
 * read ahead is read after. Built by scripts/bench-reads-floor.sh. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PANES 100000

static int pids[MAX_PANES];
static int pane_count;
static char **dirs;
static int dir_count;

/* Reads a file to its end into a buffer of this thread's, and drops it. */
static void read_whole(const char *path) {
  static __thread char buffer[1 << 16];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  while (read(fd, buffer, sizeof buffer) > 0) {
  }
  close(fd);
}

/* Reads DIR/<name><suffix> for every entry (numeric names only, if asked). */
static void read_each(const char *dir, int numeric_only, const char *suffix) {
  DIR *listing = opendir(dir);
  if (!listing) return;
  struct dirent *entry;
  char path[4096];
  while ((entry = readdir(listing))) {
    if (entry->d_name[0] == '.') continue;
    if (numeric_only && (entry->d_name[0] < '0' || entry->d_name[0] > '9')) continue;
    snprintf(path, sizeof path, "%s/%s%s", dir, entry->d_name, suffix);
    read_whole(path);
  }
  closedir(listing);
}


/* Each pid read ahead, and which of /proc's entries is a tmux server. */
static unsigned char read_ahead[4194305];
static unsigned char is_server[4194305];

/* The ppid and whether the process is a tmux server, from a stat line. */
static int parent_in(const char *stat, int *server) {
  const char *open = strchr(stat, '('), *close = strrchr(stat, ')');
  if (!open || !close) return 0;
  *server = close - open - 1 == 12 && strncmp(open + 1, "tmux: server", 12) == 0;
  int parent = 0;
  char state;
  if (sscanf(close + 1, " %c %d", &state, &parent) != 2) return 0;
  return parent;
}

/* The process table, reading each tmux server's child's environ and
 * cmdline as the pass meets it (a server is older than its panes). */
static void *read_table_ahead(void *unused) {
  (void)unused;
  DIR *listing = opendir("/proc");
  if (!listing) return NULL;
  struct dirent *entry;
  char path[64], stat[4096];
  while ((entry = readdir(listing))) {
    int pid = atoi(entry->d_name);
    if (pid <= 0 || pid > 4194304) continue;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) continue;
    stat[n] = 0;
    int server = 0, parent = parent_in(stat, &server);
    is_server[pid] = server;
    if (parent > 0 && parent <= 4194304 && is_server[parent]) {
      snprintf(path, sizeof path, "/proc/%d/environ", pid);
      read_whole(path);
      snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
      read_whole(path);
      read_ahead[pid] = 1;
    }
  }
  closedir(listing);
  return NULL;
}

/* Every file in the DIRs. */
static void *read_dirs(void *unused) {
  (void)unused;
  for (int i = 0; i < dir_count; i++) read_each(dirs[i], 0, "");
  return NULL;
}

/* The process table and the DIRs: what needs no listing. */
static void *read_unlisted(void *unused) {
  read_each("/proc", 1, "/stat");
  return read_dirs(unused);
}

/* Every other pane from `first`, with a stride of `stride`. */
struct share {
  int first, stride;
};

static void *read_panes(void *arg) {
  const struct share *share = arg;
  static const char *const parts[] = {"environ", "cmdline", "stat"};
  char path[64];
  for (int k = share->first; k < pane_count; k += share->stride)
    for (int i = 0; i < 3; i++) {
      snprintf(path, sizeof path, "/proc/%d/%s", pids[k], parts[i]);
      read_whole(path);
    }
  return NULL;
}

/* The pid in field `field` (1-based, tab-separated) of `line`; 0 if none. */
static int pid_in(const char *line, int field) {
  for (int i = 1; i < field; i++) {
    line = strchr(line, '\t');
    if (!line) return 0;
    line++;
  }
  return atoi(line);
}

int main(int argc, char **argv) {
  int separator = 0;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--") == 0) {
      separator = i;
      break;
    }
  if (argc < 4 || separator < 3 || separator + 1 >= argc) {
    fprintf(stderr, "usage: %s THREADS PID_FIELD [DIR...] -- LISTING_ARGV...\n", argv[0]);
    return 2;
  }
  int threads = atoi(argv[1]), field = atoi(argv[2]);
  dirs = argv + 3;
  dir_count = separator - 3;
  int out[2];
  if (pipe(out) != 0) return 1;
  pid_t tmux = fork();
  if (tmux < 0) return 1;
  if (tmux == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    execvp(argv[separator + 1], argv + separator + 1);
    _exit(127);
  }
  close(out[1]);
  pthread_t unlisted, table;
  if (threads == 2) pthread_create(&unlisted, NULL, read_unlisted, NULL);
  if (threads == 3) {
    pthread_create(&table, NULL, read_table_ahead, NULL);
    pthread_create(&unlisted, NULL, read_dirs, NULL);
  }
  FILE *listing = fdopen(out[0], "r");
  char line[1 << 14];
  while (listing && fgets(line, sizeof line, listing))
    if (pane_count < MAX_PANES) {
      int pid = pid_in(line, field);
      if (pid > 0) pids[pane_count++] = pid;
    }
  int status = 0, listed = pane_count;
  waitpid(tmux, &status, 0);
  if (threads == 3) {
    pthread_join(table, NULL);
    int kept = 0;
    for (int k = 0; k < pane_count; k++)
      if (pids[k] > 4194304 || !read_ahead[pids[k]]) pids[kept++] = pids[k];
    pane_count = kept;
    struct share all = {0, 1};
    read_panes(&all);
    pthread_join(unlisted, NULL);
  } else if (threads == 2) {
    struct share second = {1, 2}, first = {0, 2};
    pthread_t other;
    pthread_create(&other, NULL, read_panes, &second);
    read_panes(&first);
    pthread_join(other, NULL);
    pthread_join(unlisted, NULL);
  } else {
    struct share all = {0, 1};
    read_panes(&all);
    read_unlisted(NULL);
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && listed > 0 ? 0 : 1;
}
