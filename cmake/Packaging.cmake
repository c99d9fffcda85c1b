# Installing and packaging (docs/install.md): `cmake --install` lays out the binary, its man page
# (made from --help by help2man), the systemd unit and the default configuration; `cpack` (run by
# scripts/package) turns that into a .deb whose maintainer scripts (packaging/) create the
# service's user and data directory.
include(GNUInstallDirs)
install(TARGETS powercontext RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

find_program(HELP2MAN help2man)
if(HELP2MAN)
  set(PC_MAN_PAGE ${CMAKE_BINARY_DIR}/powercontext.1.gz)
  add_custom_command(
    OUTPUT ${PC_MAN_PAGE}
    COMMAND ${HELP2MAN} --no-info --section 1 --name "versioned, cited memory for AI agents"
            --output ${CMAKE_BINARY_DIR}/powercontext.1 $<TARGET_FILE:powercontext>
    COMMAND gzip -9nf ${CMAKE_BINARY_DIR}/powercontext.1
    DEPENDS powercontext
    COMMENT "man page from powercontext --help")
  add_custom_target(man_page ALL DEPENDS ${PC_MAN_PAGE})
  install(FILES ${PC_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

# /lib, not /usr/lib: Debian 12 ships units there (merged /usr makes them one, but dpkg does not know).
install(FILES packaging/powercontext.service DESTINATION /lib/systemd/system)
install(FILES packaging/powercontext.toml DESTINATION /etc/powercontext)
install(FILES docs/install.md README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The word vectors of embed_provider = static, when `scripts/install-deps vectors` made them
# (scripts/package does): the server looks in /usr/share/powercontext, then /usr/local/share.
set(PC_STATIC_VECTORS /usr/local/share/powercontext/wink-sg-100d.pcwv)
if(EXISTS ${PC_STATIC_VECTORS})
  install(FILES ${PC_STATIC_VECTORS} /usr/local/share/powercontext/wink-sg-100d.LICENSE
          DESTINATION ${CMAKE_INSTALL_DATADIR}/powercontext)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME powercontext)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "PowerContext developers <powercontext@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "versioned, cited memory server for AI agents")
# The long description (cpack puts the summary above it and indents each line).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Agents keep decisions, constraints, facts and next steps as small versioned\nentries, find them by full-text (Chinese and English), vector, graph or hybrid\nsearch, and get them packed into a cited, byte-budgeted context. HTTP API, MCP\nand a CLI; SQLite embedded, PostgreSQL to scale out.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends from the libraries the binary links (dpkg-shlibdeps)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "passwd")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/packaging/postinst ${CMAKE_SOURCE_DIR}/packaging/prerm
    ${CMAKE_SOURCE_DIR}/packaging/postrm ${CMAKE_SOURCE_DIR}/packaging/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
