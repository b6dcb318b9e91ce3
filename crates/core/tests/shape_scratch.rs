use stridelab_core::shape::tracker::ShapeTracker;
#[test]
fn scratch() {
    let st = ShapeTracker::from_shape(&[16]);
    let st = st.reshape(&[1, 16, 1]).unwrap();
    let st = st.pad(&[(0, 2), (0, 1), (0, 1)]).unwrap();
    println!("{:?}", st.views());
    let st = st.flip(&[true, true, true]).unwrap();
    println!("{:?}", st.views());
    let st = st.reshape(&[3, 17, 2]).unwrap();
    println!("{:?}", st.views());
    let st = st.shrink(&[(0, 2), (3, 14), (0, 1)]).unwrap();
    println!("{:?}", st.views());
    let st = st.reshape(&[22]).unwrap();
    println!("{:?}", st.views());
}
