# Take Linux 6.1's congestion-control code from Debian's linux-source package at build time
# (cmake -P): the repository holds no kernel code, the build compiles the package's.
#
#   cmake -DTARBALL=/usr/src/linux-source-6.1.tar.xz -DDEST=build/ns3/linux-source
#         -DMODULES=cubic,westwood,... -P extract.cmake
#
# DEST receives net/ipv4/tcp_NAME.c for each module, the two headers modules share
# (tcp_vegas.h, tcp_dctcp.h), the windowed min/max tracker (lib/win_minmax.c and
# include/linux/win_minmax.h) and version.c, which names the source's release; and two files
# of definitions taken from the source by name (below, "Definitions by name"):
# emusim/tcp_cong_reno.c, Reno and its helpers from net/ipv4/tcp_cong.c, and
# include/emusim/tcp-helpers.h, the inline helpers of include/net/tcp.h and
# include/net/inet_connection_sock.h that the modules call. The headers they are read from
# are kept in DEST/read/, off the include path, where the shim's headers stand in for them.
cmake_minimum_required(VERSION 3.16)

foreach(var TARBALL DEST MODULES)
  if(NOT ${var})
    message(FATAL_ERROR "extract.cmake: set -D${var}")
  endif()
endforeach()
if(NOT EXISTS "${TARBALL}")
  message(FATAL_ERROR "no ${TARBALL}: install Debian's linux-source-6.1 (tools/setup base)")
endif()

# ---- Definitions by name ----
#
# Kernel style makes a top-level definition easy to find: it begins on a line that starts in
# column 0 and names it (NAME followed by "(" for a function, " =" for an object), its body is
# the first "{" after that, before any ";" (else the line declares it), and it ends at the next
# "}" in column 0 ("}" or "};"). Each definition is copied as it stands, behind a #line
# directive that names its file and line, so that the compiler's messages point into the
# package's source.

# The definition of NAME in TEXT (the contents of FILE, as the tarball names it) with its
# #line directive, in OUT_VAR; a fatal error if FILE defines no NAME.
function(emusim_definition text file name out_var)
  set(rest "\n${text}")
  set(consumed 0) # characters of "\n${text}" before `rest`
  while(TRUE)
    string(REGEX MATCH "\n[A-Za-z_][^\n]*[ *]${name}( = |\\()" found "${rest}")
    if(NOT found)
      message(FATAL_ERROR "extract.cmake: ${file} has no definition of ${name}")
    endif()
    string(FIND "${rest}" "${found}" at)
    math(EXPR start "${at} + 1")
    string(SUBSTRING "${rest}" ${start} -1 candidate)
    string(FIND "${candidate}" "{" brace)
    string(FIND "${candidate}" ";" semicolon)
    if(brace GREATER -1 AND (semicolon EQUAL -1 OR brace LESS semicolon))
      break()
    endif()
    # a declaration: look further on
    string(LENGTH "${found}" skip)
    math(EXPR next "${at} + ${skip}")
    string(SUBSTRING "${rest}" ${next} -1 rest)
    math(EXPR consumed "${consumed} + ${next}")
  endwhile()
  string(SUBSTRING "${candidate}" ${brace} -1 body)
  string(FIND "${body}" "\n}" close)
  if(close EQUAL -1)
    message(FATAL_ERROR "extract.cmake: the definition of ${name} in ${file} does not end")
  endif()
  math(EXPR closing "${close} + 1") # the "}" in column 0, and the rest of its line
  string(SUBSTRING "${body}" ${closing} -1 tail)
  string(FIND "${tail}" "\n" end_of_line)
  if(end_of_line EQUAL -1)
    string(LENGTH "${tail}" end_of_line)
  endif()
  math(EXPR length "${brace} + ${closing} + ${end_of_line}")
  string(SUBSTRING "${candidate}" 0 ${length} definition)
  # its line: one more than the newlines before it in the file
  math(EXPR before_length "${consumed} + ${start}")
  string(SUBSTRING "\n${text}" 0 ${before_length} head)
  string(REGEX MATCHALL "\n" newlines "${head}")
  list(LENGTH newlines line)
  set(${out_var} "#line ${line} \"${file}\"\n${definition}\n" PARENT_SCOPE)
endfunction()

# Append to OUT the definitions of NAMES (a list) in FILE, a file of the extracted tree.
function(emusim_take_definitions file out)
  file(READ "${DEST}/${file}" text)
  foreach(name ${ARGN})
    emusim_definition("${text}" "${file}" "${name}" definition)
    file(APPEND "${out}" "${definition}")
  endforeach()
endfunction()

# ---- Extraction ----

string(REPLACE "," ";" MODULES "${MODULES}")
get_filename_component(top "${TARBALL}" NAME)
string(REGEX REPLACE "\\.tar\\.xz$" "" top "${top}")
set(read_headers include/net/tcp.h include/net/inet_connection_sock.h)
set(members "${top}/Makefile" "${top}/net/ipv4/tcp_vegas.h" "${top}/net/ipv4/tcp_dctcp.h"
            "${top}/lib/win_minmax.c" "${top}/include/linux/win_minmax.h"
            "${top}/net/ipv4/tcp_cong.c")
foreach(header ${read_headers})
  list(APPEND members "${top}/${header}")
endforeach()
foreach(module ${MODULES})
  list(APPEND members "${top}/net/ipv4/tcp_${module}.c")
endforeach()

file(REMOVE_RECURSE "${DEST}")
file(MAKE_DIRECTORY "${DEST}")
# --touch: the files are as new as the extraction, so the build does not extract them again
execute_process(COMMAND tar -xJf "${TARBALL}" -C "${DEST}" --strip-components=1 --touch
                        ${members}
                RESULT_VARIABLE status ERROR_VARIABLE error)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "extracting the congestion-control modules from ${TARBALL} failed: ${error}")
endif()
# The release, from the tree's own Makefile: VERSION.PATCHLEVEL.SUBLEVEL
file(STRINGS "${DEST}/Makefile" head LIMIT_COUNT 6)
foreach(key VERSION PATCHLEVEL SUBLEVEL)
  string(REGEX MATCH "${key} = ([0-9]+)" found "${head}")
  set(${key} "${CMAKE_MATCH_1}")
endforeach()
set(release "${VERSION}.${PATCHLEVEL}.${SUBLEVEL}")
file(WRITE "${DEST}/version.c"
     "/* generated by sim/ns3/linux/extract.cmake from ${TARBALL} */\n"
     "const char *emusim_linux_source_release = \"${release}\";\n")

# Reno, always built into the kernel, and the helpers the modules share (tcp_slow_start,
# tcp_cong_avoid_ai, tcp_reno_*): tcp_cong.c's registration, sysctls and socket options are
# the kernel's own business and stay out (the shim registers, emusim-kernel.c)
set(reno "${DEST}/emusim/tcp_cong_reno.c")
file(WRITE "${reno}"
     "/* generated by sim/ns3/linux/extract.cmake from ${TARBALL} (${release}):\n"
     " * Reno and its helpers, as net/ipv4/tcp_cong.c defines them */\n"
     "#include <linux/module.h>\n#include <net/tcp.h>\n\n")
emusim_take_definitions(net/ipv4/tcp_cong.c "${reno}" tcp_slow_start tcp_cong_avoid_ai
                        tcp_reno_cong_avoid tcp_reno_ssthresh tcp_reno_undo_cwnd tcp_reno)

# The inline helpers the modules call, in the order the shim needs them (emusim-kernel.h
# includes this after the structures and constants they read)
set(helpers "${DEST}/include/emusim/tcp-helpers.h")
file(WRITE "${helpers}"
     "/* generated by sim/ns3/linux/extract.cmake from ${TARBALL} (${release}):\n"
     " * the inline helpers of the kernel's headers that the modules call */\n")
emusim_take_definitions(include/net/inet_connection_sock.h "${helpers}" inet_csk inet_csk_ca)
emusim_take_definitions(
  include/net/tcp.h "${helpers}" before between tcp_min_rtt tcp_time_stamp tcp_stamp_us_delta
  tcp_left_out tcp_packets_in_flight tcp_snd_cwnd tcp_snd_cwnd_set tcp_in_slow_start
  tcp_in_initial_slowstart tcp_in_cwnd_reduction tcp_current_ssthresh tcp_is_cwnd_limited)

# DEST/include is on the modules' include path for <linux/win_minmax.h> and the generated
# <emusim/tcp-helpers.h> alone: the headers the helpers were read from move off it
foreach(header ${read_headers})
  get_filename_component(dir "${DEST}/read/${header}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  file(RENAME "${DEST}/${header}" "${DEST}/read/${header}")
endforeach()
