# Installation layout and CPack (.deb and .tar.gz). Included from the top-level CMakeLists.
include(GNUInstallDirs)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/devices ${PROJECT_SOURCE_DIR}/resources/stacks
  ${PROJECT_SOURCE_DIR}/resources/calibration ${PROJECT_SOURCE_DIR}/resources/presets
  ${PROJECT_SOURCE_DIR}/resources/llm-presets ${PROJECT_SOURCE_DIR}/resources/energy
  ${PROJECT_SOURCE_DIR}/resources/models
  DESTINATION ${CMAKE_INSTALL_DATADIR}/accellab)
configure_file(${PROJECT_SOURCE_DIR}/packaging/accellab.desktop.in
  ${PROJECT_BINARY_DIR}/packaging/${ACCELLAB_ID}.desktop @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/packaging/accellab.metainfo.xml.in
  ${PROJECT_BINARY_DIR}/packaging/${ACCELLAB_ID}.metainfo.xml @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/packaging/${ACCELLAB_ID}.desktop
  DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_BINARY_DIR}/packaging/${ACCELLAB_ID}.metainfo.xml
  DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/accellab.svg
  DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps RENAME ${ACCELLAB_ID}.svg)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_PACKAGE_NAME "accellab")
set(CPACK_PACKAGE_VENDOR "AccelLab developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "AccelLab developers <accellab@example.invalid>")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The Qt platform plugins and the data set are not visible to shlibdeps.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, libqt6svg6")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "dataset-fashion-mnist")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "CPU, GPU and TPU training lab
 AccelLab trains a model for real on this machine's CPU and simulates the same
 training on cloud CPUs, GPUs and TPUs from the model's layers and a data
 description of the hardware, with time, memory and cost, charted live.")
include(CPack)
