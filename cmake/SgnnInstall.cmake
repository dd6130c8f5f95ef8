# `cmake --install <build> --prefix <dir>` puts the headers under
# <dir>/include/sparsegnn/<layer>/ (a layer's subfolders, e.g.
# graph_io/readers/, keep their place: install(DIRECTORY) recurses), the
# static layer libraries and libsparsegnn.so under <dir>/lib, the bundled datasets under
# <dir>/share/sparsegnn/datasets and a package config under
# <dir>/lib/cmake/sparsegnn, so a user's project does `find_package(sparsegnn)`
# and links `sparsegnn::shared` (libsparsegnn.so) or `sparsegnn::sparsegnn`
# (the static libraries); examples/external_project builds one of each.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

install(TARGETS sparsegnn sparsegnn_shared EXPORT sparsegnnTargets)
install(DIRECTORY core ops graph_io sampling training distributed fetch
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sparsegnn
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.inl" PATTERN "*.cuh")

install(DIRECTORY ${PROJECT_SOURCE_DIR}/datasets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/sparsegnn/datasets)

set(SGNN_CONFIG_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sparsegnn)
install(EXPORT sparsegnnTargets NAMESPACE sparsegnn:: DESTINATION ${SGNN_CONFIG_DESTINATION})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/sparsegnnConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/sparsegnnConfig.cmake
                              INSTALL_DESTINATION ${SGNN_CONFIG_DESTINATION})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/sparsegnnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/sparsegnnConfig.cmake
              ${PROJECT_BINARY_DIR}/sparsegnnConfigVersion.cmake
        DESTINATION ${SGNN_CONFIG_DESTINATION})
